/** The typed, nested configuration every module receives a slice of (built by load-config.ts). */
export type Config = Readonly<{
  server: Readonly<{
    host: string
    port: number
    apiToken: string | undefined
    docsPublic: boolean
    bodyLimitBytes: number
    requestTimeoutMs: number
  }>
  workspace: Readonly<{
    /** Absolute path of the workspace directory. */
    root: string
    /** Extra files or folders to index, workspace-relative POSIX paths. */
    extraPaths: readonly string[]
  }>
  index: Readonly<{
    dataDir: string
    dbPath: string
    maxFileBytes: number
    indexOnStart: boolean
  }>
  chunking: Readonly<{ maxTokens: number; overlapTokens: number }>
  search: Readonly<{ maxResults: number; minScore: number; snippetMaxChars: number; workers: number }>
  log: Readonly<{ level: string }>
}>
