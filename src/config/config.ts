/** The typed, nested configuration every module receives a slice of (built by load-config.ts). */
export type Config = Readonly<{
  server: Readonly<{
    host: string
    port: number
    apiToken: string | undefined
    docsPublic: boolean
    /** Serve the web console at /ui. */
    console: boolean
    /** GET /metrics without a token. */
    metricsPublic: boolean
    /** Without a token: more host names requests may be addressed to (browser-guard.ts). */
    allowedHosts: readonly string[]
    /** Without a token: origins of pages allowed to call the API. */
    allowedOrigins: readonly string[]
    /** Body limit of the JSON routes (/search, /index, /mcp), in bytes. */
    bodyLimitBytes: number
    /** Time from a request's start until its whole body must have arrived, in ms (408 past it). */
    requestTimeoutMs: number
    /** Time a body may go without a byte arriving, in ms (408 past it); at most requestTimeoutMs. */
    bodyIdleTimeoutMs: number
  }>
  /** Admission control (src/http/plugins/admission.ts). */
  admission: Readonly<{
    /** Requests of one agent in progress at once. */
    agentMaxConcurrent: number
    /** How long a request waits for a slot of its agent, in ms. */
    agentQueueMs: number
    /** Mean event-loop delay that sheds requests, in ms; 0 = off. */
    shedEventLoopDelayMs: number
    /** Share of the V8 heap limit in use that sheds requests; 0 = off. */
    shedHeapFraction: number
    /** Request-body bytes in flight across all requests, counted as they arrive. */
    maxBodyBytesInFlight: number
    /**
     * Request-body bytes in flight of one agent: half of maxBodyBytesInFlight, or the largest
     * body a route takes if more (body-share.ts agentBodyShareBytes).
     */
    agentBodyShareBytes: number
    /** JSON-RPC messages in one /mcp batch. */
    mcpMaxBatch: number
  }>
  workspace: Readonly<{
    /** Absolute path of the workspace directory. */
    root: string
    /** Extra files or folders to index, workspace-relative POSIX paths. */
    extraPaths: readonly string[]
    /** Whether the write API may write under the extra paths. */
    extraPathsWritable: boolean
    /** Absolute path of the session transcripts folder, if any. */
    sessionsDir: string | undefined
  }>
  agents: Readonly<{
    /** Absolute path of the folder holding one workspace per further agent, if any. */
    dir: string | undefined
    /** Agent indexes open at once (LRU). */
    maxOpen: number
    /** Agent folders MNEMO_AGENTS_DIR may hold (creating more is AGENT_LIMIT). */
    maxAgents: number
    /** Folders one space may hold (creating more is FOLDER_LIMIT): each is an inotify watch. */
    maxFolders: number
    /** Users one agent may have (MNEMO_MAX_USERS_PER_AGENT): a new one beyond is USER_LIMIT. */
    maxUsers: number
    /** Absolute path of the team workspace, if any. */
    teamDir: string | undefined
    teamWritable: boolean
    /** Agent id (or `agent/user`, a token bound to one user) → its token (secrets: never logged). */
    tokens: ReadonlyMap<string, string>
    /** Reader id → the agents whose memory it may search and read, never write (MNEMO_AGENT_GRANTS). */
    grants: ReadonlyMap<string, readonly string[]>
    /** Agents whose tokens may write entries of origin owner (MNEMO_OWNER_AGENTS). */
    ownerAgents: ReadonlySet<string>
  }>
  sync: Readonly<{ watch: boolean; debounceMs: number; rescanMs: number }>
  index: Readonly<{
    dataDir: string
    dbPath: string
    /** PostgreSQL instead of SQLite files (SPEC §10); the URL is a secret, never logged. */
    database: Readonly<{ url: string; schema: string; poolMax: number; waitMs: number }> | undefined
    maxFileBytes: number
    indexOnStart: boolean
  }>
  chunking: Readonly<{ maxTokens: number; overlapTokens: number }>
  /** The search log (SPEC §12): each search kept for people to see what agents looked for. */
  searchLog: Readonly<{
    /** MNEMO_SEARCH_LOG=on (default). */
    enabled: boolean
    /** Days a logged search is kept (MNEMO_SEARCH_LOG_DAYS). */
    retentionDays: number
    /** Newest searches kept per agent (MNEMO_SEARCH_LOG_MAX_PER_AGENT). */
    maxPerAgent: number
  }>
  search: Readonly<{
    maxResults: number
    minScore: number
    snippetMaxChars: number
    /** UTF-8 bytes of snippets one search answer carries in all. */
    snippetBytesPerSearch: number
    workers: number
    /** Chunks from which vector searches pre-select by quantised vectors (0: never). */
    quantizedFrom: number
    vectorWeight: number
    textWeight: number
    candidateMultiplier: number
    maxCandidates: number
    /** Temporal decay half-life in days; 0 = off (recency.ts). */
    halfLifeDays: number
    /** MMR diversity on by default, and its λ (mmr.ts). */
    mmr: boolean
    mmrLambda: number
  }>
  embedding: Readonly<{
    provider: 'auto' | 'openai' | 'local' | 'hash' | 'none'
    baseUrl: string | undefined
    apiKey: string | undefined
    model: string | undefined
    dims: number | undefined
    /**
     * Dimensions learnt from the server at start-up, or remembered from an earlier start
     * (probe-dims.ts); never sent in requests.
     */
    probedDims?: number | undefined
    /** Why this start's dimensions probe failed: the container keeps asking in the background. */
    probeError?: string | undefined
    batchSize: number
    batchTokens: number
    concurrency: number
    timeoutMs: number
    queryTimeoutMs: number
    maxRetries: number
    cacheMaxEntries: number
    localModelDir: string | undefined
    allowDownload: boolean
    queryPrefix: string | undefined
    passagePrefix: string | undefined
    hashDims: number
    vectorBackend: 'auto' | 'sqlite-vec' | 'scan'
  }>
  rerank: Readonly<{
    provider: 'none' | 'http' | 'dashscope' | 'local'
    baseUrl: string | undefined
    apiKey: string | undefined
    model: string | undefined
    localModelDir: string | undefined
    timeoutMs: number
    topN: number
  }>
  /** Query expansion (src/search/expand/): a chat model's variants, else the heuristic's. */
  expand: Readonly<{
    /** Whether a search that does not say `expand` expands. */
    byDefault: boolean
    baseUrl: string | undefined
    /** Secret: never logged. */
    apiKey: string | undefined
    model: string | undefined
    timeoutMs: number
    cacheMaxEntries: number
  }>
  log: Readonly<{ level: string }>
}>
