/**
 * loadConfig(env, cwd) → Config: validates the MNEMO_* variables with env-schema.ts and
 * shapes them into the nested Config. Throws a ConfigError (shared/config-error.ts) listing every problem, each
 * naming its variable, so one start-up attempt shows all of them.
 */
import fs from 'node:fs'
import path from 'node:path'
import { agentBodyShareBytes } from './body-share.js'
import { GRANTS_PREFIX, MAIN_AGENT, TEAM_PREFIX, USERS_DIR } from '../shared/agent-id.js'
import { invalidConfiguration } from '../shared/config-error.js'
import { parseAgentGrants } from './agent-grants.js'
import { tokenAgent } from './agent-tokens.js'
import { isAgentId } from '../shared/agent-id.js'
import type { Config } from './config.js'
import { envSchema } from './env-schema.js'
import { openWithoutToken } from './loopback.js'
import { loadAdminToken, loadAgentTokens, loadDatabaseUrl, variableOrFile } from './token-settings.js'

/** File name of the index inside MNEMO_DATA_DIR. */
export const INDEX_FILE_NAME = 'index.sqlite'

/**
 * How long a request body may go without a byte arriving when MNEMO_BODY_IDLE_TIMEOUT_MS is
 * unset, in ms (or MNEMO_REQUEST_TIMEOUT_MS, if shorter): longer than a lost packet's
 * retransmissions on a poor link take (a few seconds), and it frees a stalled upload's
 * connection and bytes a third of the way into the default 30 s request timeout.
 */
const BODY_IDLE_TIMEOUT_MS = 10_000

/** A comma-separated list, trimmed, without empty items. */
const list = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)

function toPosix(p: string): string {
  return p.split(path.sep).join('/')
}

/** Extra paths as workspace-relative POSIX paths; anything outside the workspace is an error. */
function parseExtraPaths(raw: string | undefined, root: string, issues: string[]): string[] {
  if (!raw) return []
  const out: string[] = []
  for (const item of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const abs = path.resolve(root, item)
    const rel = path.relative(root, abs)
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
      issues.push(`MNEMO_EXTRA_PATHS: "${item}" is not inside the workspace ${root}`)
      continue
    }
    out.push(toPosix(rel))
  }
  return [...new Set(out)]
}

/** A folder's real path when it exists (symlinks resolved), else the path as given. */
function realOrResolved(p: string): string {
  try {
    return fs.realpathSync(p)
  } catch {
    return p
  }
}

/** Whether one folder is the other or lies inside it. */
function overlaps(a: string, b: string): boolean {
  const [x, y] = [realOrResolved(a), realOrResolved(b)]
  return x === y || x.startsWith(`${y}${path.sep}`) || y.startsWith(`${x}${path.sep}`)
}

/**
 * The workspace, the agents folder and the team folder may not overlap: an agent whose
 * folder lay inside another's workspace could be read and written through that one.
 */
function checkSeparateFolders(
  root: string,
  agentsDir: string | undefined,
  teamDir: string | undefined,
  issues: string[],
) {
  const apart = 'must not be, contain or lie inside'
  if (agentsDir !== undefined && overlaps(agentsDir, root)) issues.push(`MNEMO_AGENTS_DIR: ${apart} MNEMO_WORKSPACE`)
  if (teamDir !== undefined && overlaps(teamDir, root)) issues.push(`MNEMO_TEAM_DIR: ${apart} MNEMO_WORKSPACE`)
  if (teamDir !== undefined && agentsDir !== undefined && overlaps(teamDir, agentsDir)) {
    issues.push(`MNEMO_TEAM_DIR: ${apart} MNEMO_AGENTS_DIR`)
  }
}

export function loadConfig(env: Record<string, string | undefined>, cwd: string): Config {
  const parsed = envSchema.safeParse(env)
  if (!parsed.success) {
    throw invalidConfiguration(parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`))
  }
  const e = parsed.data
  const issues: string[] = []
  const root = path.resolve(cwd, e.MNEMO_WORKSPACE)
  const dataDir = path.resolve(cwd, e.MNEMO_DATA_DIR)
  const extraPaths = parseExtraPaths(e.MNEMO_EXTRA_PATHS, root, issues)
  const agentsDir = e.MNEMO_AGENTS_DIR && path.resolve(cwd, e.MNEMO_AGENTS_DIR)
  const teamDir = e.MNEMO_TEAM_DIR && path.resolve(cwd, e.MNEMO_TEAM_DIR)
  checkSeparateFolders(root, agentsDir, teamDir, issues)
  const apiToken = loadAdminToken(e, cwd, issues)
  const databaseUrl = loadDatabaseUrl(e, cwd, issues)
  const agentTokens = loadAgentTokens(e, apiToken, cwd, issues)
  const expandKey = variableOrFile(
    'MNEMO_EXPAND_API_KEY',
    e.MNEMO_EXPAND_API_KEY,
    e.MNEMO_EXPAND_API_KEY_FILE,
    cwd,
    issues,
  )
  // Safe by default (SPEC §7): beyond loopback, no token would make anyone on the network admin.
  if (openWithoutToken(e.MNEMO_HOST, apiToken, agentTokens.size) && !e.MNEMO_ALLOW_NO_TOKEN) {
    issues.push(
      `MNEMO_API_TOKEN: needed because MNEMO_HOST=${e.MNEMO_HOST} is reachable from other machines; set it ` +
        '(or MNEMO_API_TOKEN_FILE, or agent tokens), or set MNEMO_ALLOW_NO_TOKEN=true to serve without a token',
    )
  }
  const tokenAgents = new Set([...agentTokens.keys()].map(tokenAgent))
  if (agentsDir === undefined && [...tokenAgents].some((id) => id !== MAIN_AGENT)) {
    issues.push('MNEMO_AGENT_TOKENS: agents other than "main" need MNEMO_AGENTS_DIR')
  }
  if (teamDir !== undefined && extraPaths.some((p) => p === 'team' || p.startsWith(TEAM_PREFIX))) {
    issues.push('MNEMO_EXTRA_PATHS: team/ is reserved for team memory when MNEMO_TEAM_DIR is set')
  }
  const grants = parseAgentGrants(
    e.MNEMO_AGENT_GRANTS,
    { agentsDir, tokens: tokenAgents, maxOpen: e.MNEMO_MAX_OPEN_AGENTS },
    issues,
  )
  if (grants.has(MAIN_AGENT) && extraPaths.some((p) => `${p}/`.startsWith(GRANTS_PREFIX))) {
    issues.push('MNEMO_EXTRA_PATHS: agents/ is reserved for granted memories when main reads another agent')
  }
  if (extraPaths.some((p) => `${p}/`.startsWith(`${USERS_DIR}/`))) {
    issues.push("MNEMO_EXTRA_PATHS: users/ is reserved for the memory of the agent's users")
  }
  const ownerAgents = new Set(list(e.MNEMO_OWNER_AGENTS))
  for (const id of ownerAgents) {
    if (!isAgentId(id))
      issues.push(`MNEMO_OWNER_AGENTS: "${id.slice(0, 63)}" is not an agent id (a-z 0-9 _ -, up to 63)`)
    else if (!agentTokens.has(id)) issues.push(`MNEMO_OWNER_AGENTS: "${id}" has no token in MNEMO_AGENT_TOKENS`)
  }
  if (issues.length > 0) throw invalidConfiguration(issues)

  const config: Config = {
    server: {
      host: e.MNEMO_HOST,
      port: e.MNEMO_PORT,
      apiToken,
      docsPublic: e.MNEMO_DOCS_PUBLIC,
      console: e.MNEMO_CONSOLE,
      metricsPublic: e.MNEMO_METRICS_PUBLIC,
      allowedHosts: list(e.MNEMO_ALLOWED_HOSTS),
      allowedOrigins: list(e.MNEMO_ALLOWED_ORIGINS),
      bodyLimitBytes: e.MNEMO_BODY_LIMIT_BYTES,
      requestTimeoutMs: e.MNEMO_REQUEST_TIMEOUT_MS,
      bodyIdleTimeoutMs: e.MNEMO_BODY_IDLE_TIMEOUT_MS ?? Math.min(BODY_IDLE_TIMEOUT_MS, e.MNEMO_REQUEST_TIMEOUT_MS),
    },
    admission: {
      agentMaxConcurrent: e.MNEMO_AGENT_MAX_CONCURRENT,
      agentQueueMs: e.MNEMO_AGENT_QUEUE_MS,
      shedEventLoopDelayMs: e.MNEMO_SHED_EVENT_LOOP_DELAY_MS,
      shedHeapFraction: e.MNEMO_SHED_HEAP_FRACTION,
      maxBodyBytesInFlight: e.MNEMO_MAX_BODY_BYTES_IN_FLIGHT,
      agentBodyShareBytes: agentBodyShareBytes(
        e.MNEMO_MAX_BODY_BYTES_IN_FLIGHT,
        Math.max(e.MNEMO_BODY_LIMIT_BYTES, e.MNEMO_MAX_FILE_BYTES),
      ),
      mcpMaxBatch: e.MNEMO_MCP_MAX_BATCH,
    },
    workspace: {
      root,
      extraPaths,
      extraPathsWritable: e.MNEMO_EXTRA_PATHS_WRITABLE,
      sessionsDir: e.MNEMO_SESSIONS_DIR && path.resolve(cwd, e.MNEMO_SESSIONS_DIR),
    },
    agents: {
      dir: agentsDir,
      maxOpen: e.MNEMO_MAX_OPEN_AGENTS,
      maxAgents: e.MNEMO_MAX_AGENTS,
      maxFolders: e.MNEMO_MAX_FOLDERS_PER_AGENT,
      maxUsers: e.MNEMO_MAX_USERS_PER_AGENT,
      teamDir,
      teamWritable: e.MNEMO_TEAM_WRITABLE,
      tokens: agentTokens,
      grants,
      ownerAgents,
    },
    sync: { watch: e.MNEMO_WATCH, debounceMs: e.MNEMO_SYNC_DEBOUNCE_MS, rescanMs: e.MNEMO_SYNC_RESCAN_MS },
    index: {
      dataDir,
      dbPath: path.join(dataDir, INDEX_FILE_NAME),
      database: databaseUrl
        ? {
            url: databaseUrl,
            schema: e.MNEMO_DATABASE_SCHEMA,
            poolMax: e.MNEMO_DATABASE_POOL,
            waitMs: e.MNEMO_DATABASE_WAIT_MS,
          }
        : undefined,
      maxFileBytes: e.MNEMO_MAX_FILE_BYTES,
      indexOnStart: e.MNEMO_INDEX_ON_START,
    },
    chunking: { maxTokens: e.MNEMO_CHUNK_TOKENS, overlapTokens: e.MNEMO_CHUNK_OVERLAP_TOKENS },
    searchLog: {
      enabled: e.MNEMO_SEARCH_LOG === 'on',
      retentionDays: e.MNEMO_SEARCH_LOG_DAYS,
      maxPerAgent: e.MNEMO_SEARCH_LOG_MAX_PER_AGENT,
    },
    search: {
      maxResults: e.MNEMO_SEARCH_MAX_RESULTS,
      minScore: e.MNEMO_SEARCH_MIN_SCORE,
      snippetMaxChars: e.MNEMO_SNIPPET_MAX_CHARS,
      snippetBytesPerSearch: e.MNEMO_SNIPPET_BYTES_PER_SEARCH,
      workers: e.MNEMO_SEARCH_WORKERS,
      quantizedFrom: e.MNEMO_SEARCH_QUANTIZED_FROM,
      vectorWeight: e.MNEMO_SEARCH_VECTOR_WEIGHT,
      textWeight: e.MNEMO_SEARCH_TEXT_WEIGHT,
      candidateMultiplier: e.MNEMO_SEARCH_CANDIDATE_MULTIPLIER,
      maxCandidates: e.MNEMO_SEARCH_MAX_CANDIDATES,
      halfLifeDays: e.MNEMO_SEARCH_HALF_LIFE_DAYS,
      mmr: e.MNEMO_SEARCH_MMR,
      mmrLambda: e.MNEMO_SEARCH_MMR_LAMBDA,
    },
    embedding: {
      provider: e.MNEMO_EMBED_PROVIDER,
      baseUrl: e.MNEMO_EMBED_BASE_URL,
      apiKey: e.MNEMO_EMBED_API_KEY,
      model: e.MNEMO_EMBED_MODEL,
      dims: e.MNEMO_EMBED_DIMENSIONS,
      batchSize: e.MNEMO_EMBED_BATCH_SIZE,
      batchTokens: e.MNEMO_EMBED_BATCH_TOKENS,
      concurrency: e.MNEMO_EMBED_CONCURRENCY,
      timeoutMs: e.MNEMO_EMBED_TIMEOUT_MS,
      queryTimeoutMs: e.MNEMO_EMBED_QUERY_TIMEOUT_MS,
      maxRetries: e.MNEMO_EMBED_MAX_RETRIES,
      cacheMaxEntries: e.MNEMO_EMBED_CACHE_MAX_ENTRIES,
      localModelDir: e.MNEMO_LOCAL_MODEL_DIR && path.resolve(cwd, e.MNEMO_LOCAL_MODEL_DIR),
      allowDownload: e.MNEMO_LOCAL_ALLOW_DOWNLOAD,
      queryPrefix: e.MNEMO_LOCAL_QUERY_PREFIX,
      passagePrefix: e.MNEMO_LOCAL_PASSAGE_PREFIX,
      hashDims: e.MNEMO_HASH_DIMS,
      vectorBackend: e.MNEMO_VECTOR_BACKEND,
    },
    rerank: {
      provider: e.MNEMO_RERANK_PROVIDER,
      baseUrl: e.MNEMO_RERANK_BASE_URL,
      apiKey: e.MNEMO_RERANK_API_KEY,
      model: e.MNEMO_RERANK_MODEL,
      localModelDir: e.MNEMO_RERANK_LOCAL_MODEL_DIR && path.resolve(cwd, e.MNEMO_RERANK_LOCAL_MODEL_DIR),
      timeoutMs: e.MNEMO_RERANK_TIMEOUT_MS,
      topN: e.MNEMO_RERANK_TOP_N,
    },
    expand: {
      byDefault: e.MNEMO_SEARCH_EXPAND,
      baseUrl: e.MNEMO_EXPAND_BASE_URL,
      apiKey: expandKey,
      model: e.MNEMO_EXPAND_MODEL,
      timeoutMs: e.MNEMO_EXPAND_TIMEOUT_MS,
      cacheMaxEntries: e.MNEMO_EXPAND_CACHE_MAX_ENTRIES,
    },
    log: { level: e.MNEMO_LOG_LEVEL },
  }
  return deepFreeze(config)
}

function deepFreeze<T>(value: T): T {
  // Maps are read-only by type (ReadonlyMap); Object.freeze does not reach their entries.
  if (value && typeof value === 'object' && !(value instanceof Map)) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}
