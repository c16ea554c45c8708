/**
 * The MNEMO_* environment variables (SPEC §7), parsed once at start-up. Every variable has a
 * default or is optional, so an empty environment starts the service; `.env.example` lists
 * them all. Empty strings count as unset.
 */
import { z } from 'zod'

const unsetIfEmpty = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v)

/** Wraps a variable's schema so an empty string counts as unset (its default or undefined). */
const envVar = <T extends z.ZodType>(schema: T) => z.preprocess(unsetIfEmpty, schema)

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max)
const num = (min: number, max: number) => z.coerce.number().min(min).max(max)
/** Booleans are the words `true` and `false` only, so a typo cannot flip a setting. */
const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false'], { message: 'must be "true" or "false"' })
    .transform((v) => v === 'true')
    .default(fallback)

const MIB = 1024 * 1024

export const envSchema = z
  .object({
    MNEMO_HOST: envVar(z.string().default('127.0.0.1')).describe('Interface to listen on (the container sets 0.0.0.0)'),
    MNEMO_PORT: envVar(int(0, 65535).default(8787)).describe('TCP port (0 picks a free one)'),
    MNEMO_WORKSPACE: envVar(z.string().default('./workspace')).describe(
      'Workspace directory holding MEMORY.md and memory/; created with an example MEMORY.md if missing',
    ),
    MNEMO_DATA_DIR: envVar(z.string().default('./.mnemo')).describe('Directory for the SQLite index (index.sqlite)'),
    MNEMO_DATABASE_URL: envVar(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// or postgresql:// URL' })
        .optional(),
    ).describe(
      'PostgreSQL (15+, pgvector 0.7+ with embeddings) holding every index instead of SQLite files, shared by any number of replicas; unset: SQLite in MNEMO_DATA_DIR',
    ),
    MNEMO_DATABASE_URL_FILE: envVar(z.string().optional()).describe(
      'File holding MNEMO_DATABASE_URL (a Docker or Kubernetes secret: the URL holds a password); not with MNEMO_DATABASE_URL',
    ),
    MNEMO_DATABASE_SCHEMA: envVar(
      z
        .string()
        .regex(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'must be a lower-case SQL name (letters, digits, _)' })
        .default('mnemo'),
    ).describe("Schema of MNEMO_DATABASE_URL that holds mnemo's tables (created when missing)"),
    MNEMO_DATABASE_POOL: envVar(int(1, 1000).default(10)).describe(
      'Most connections one replica opens to MNEMO_DATABASE_URL',
    ),
    MNEMO_DATABASE_WAIT_MS: envVar(int(0, 60_000).default(5000)).describe(
      'How long requests wait for MNEMO_DATABASE_URL once it is found away (a restart, a failover), counted from then: those that find it back within this time succeed, the others answer 503 INDEX_UNAVAILABLE',
    ),
    MNEMO_EXTRA_PATHS: envVar(z.string().optional()).describe(
      'Comma-separated extra files or folders to index, inside the workspace (relative or absolute)',
    ),
    MNEMO_API_TOKEN: envVar(z.string().optional()).describe(
      'Admin token (16+ characters, no whitespace): when set, every route except /health requires "Authorization: Bearer <token>"; it may act for any agent',
    ),
    MNEMO_API_TOKEN_FILE: envVar(z.string().optional()).describe(
      'File holding the admin token (a Docker or Kubernetes secret); one trailing newline is ignored. Not with MNEMO_API_TOKEN',
    ),
    MNEMO_ALLOW_NO_TOKEN: envVar(bool(false)).describe(
      'Start without any token although MNEMO_HOST is not a loopback address (anyone who can reach the port is admin)',
    ),
    MNEMO_AGENTS_DIR: envVar(z.string().optional()).describe(
      'Folder of further agents, one sub-folder per agent id (<dir>/<id>/MEMORY.md, memory/); unset: only "main"',
    ),
    MNEMO_MAX_OPEN_AGENTS: envVar(int(1, 100_000).default(64)).describe(
      'Agent indexes kept open at once; the least recently used idle ones are closed and reopened on demand',
    ),
    MNEMO_MAX_AGENTS: envVar(int(1, 1_000_000).default(1000)).describe(
      'Agent folders MNEMO_AGENTS_DIR may hold: creating one more is 409 AGENT_LIMIT',
    ),
    MNEMO_MAX_FOLDERS_PER_AGENT: envVar(int(1, 100_000).default(100)).describe(
      'Folders one memory may hold (each costs an inotify watch while open): one more is 409 FOLDER_LIMIT',
    ),
    MNEMO_MAX_USERS_PER_AGENT: envVar(int(1, 1_000_000).default(10_000)).describe(
      'Users one agent may have (each a folder under users/ and an index): one more is 409 USER_LIMIT',
    ),
    MNEMO_TEAM_DIR: envVar(z.string().optional()).describe(
      'Team workspace every agent can search and read (paths under team/); unset: no team memory',
    ),
    MNEMO_TEAM_WRITABLE: envVar(bool(false)).describe('Let agents write team memory through the API (team/...)'),
    MNEMO_AGENT_TOKENS: envVar(z.string().optional()).describe(
      'Agent tokens as id:token,id:token: a request with one acts as that agent only (never logged)',
    ),
    MNEMO_AGENT_TOKENS_FILE: envVar(z.string().optional()).describe(
      'File of agent tokens, one id:token per line (# comments). Not with MNEMO_AGENT_TOKENS',
    ),
    MNEMO_AGENT_GRANTS: envVar(z.string().optional()).describe(
      "Read grants as reader:owner,reader:owner: the reader may search and read the owner's memory (space agent:<owner>, paths under agents/<owner>/), never write it",
    ),
    MNEMO_OWNER_AGENTS: envVar(z.string().optional()).describe(
      'Agents (comma-separated ids) whose tokens may write entries of origin owner; without it only the admin token may',
    ),
    MNEMO_ALLOWED_HOSTS: envVar(z.string().optional()).describe(
      'Without a token: host names besides localhost that requests may be addressed to (comma-separated), e.g. the compose service name',
    ),
    MNEMO_ALLOWED_ORIGINS: envVar(z.string().optional()).describe(
      'Without a token: origins of web pages allowed to call the API (comma-separated, e.g. https://dashboard.example)',
    ),
    MNEMO_DOCS_PUBLIC: envVar(bool(false)).describe(
      'Serve /docs and /openapi.json without the API token (they hold no data)',
    ),
    MNEMO_CONSOLE: envVar(bool(true)).describe(
      'Serve the web console at /ui (its page and scripts hold no data: every call it makes needs the token as the API does)',
    ),
    MNEMO_METRICS_PUBLIC: envVar(bool(false)).describe(
      'Serve /metrics without a token (for a Prometheus that cannot send one); otherwise it needs the admin token',
    ),
    MNEMO_BODY_LIMIT_BYTES: envVar(int(1024, 256 * MIB).default(MIB)).describe(
      'Largest request body of the JSON routes (/search, /index, /mcp), in bytes; file writes and /flush take up to MNEMO_MAX_FILE_BYTES',
    ),
    MNEMO_REQUEST_TIMEOUT_MS: envVar(int(1000, 600_000).default(30_000)).describe(
      'Time limit for receiving a whole request, body included, from its start, in ms; past it 408 REQUEST_TIMEOUT and the connection closes',
    ),
    // Unset: 10 s, or MNEMO_REQUEST_TIMEOUT_MS when that is shorter (load-config.ts), so
    // lowering the request timeout alone never makes the configuration invalid.
    MNEMO_BODY_IDLE_TIMEOUT_MS: envVar(int(100, 600_000).optional()).describe(
      'Time a request body may go without a byte arriving, in ms (unset: 10000, or MNEMO_REQUEST_TIMEOUT_MS if shorter); past it 408 REQUEST_TIMEOUT and the connection closes. At most MNEMO_REQUEST_TIMEOUT_MS',
    ),
    // Admission control (docs/decisions.md, "Admission control"): one agent cannot take the
    // whole process, and an overloaded process refuses work instead of missing its probes.
    MNEMO_AGENT_MAX_CONCURRENT: envVar(int(1, 10_000).default(8)).describe(
      'Requests of one agent in progress at once (every route but /health, /ready, /metrics and the docs)',
    ),
    MNEMO_AGENT_QUEUE_MS: envVar(int(0, 60_000).default(1000)).describe(
      'How long a request past MNEMO_AGENT_MAX_CONCURRENT waits for its agent (first come, first served) before 429 AGENT_BUSY, in ms',
    ),
    MNEMO_SHED_EVENT_LOOP_DELAY_MS: envVar(int(0, 60_000).default(100)).describe(
      'Mean event-loop delay over 0.5 s above which requests get 503 OVERLOADED (/health, /ready, /metrics still answer), in ms; 0: off',
    ),
    MNEMO_SHED_HEAP_FRACTION: envVar(num(0, 1).default(0.9)).describe(
      'Share of the V8 heap limit in use above which requests get 503 OVERLOADED; 0: off',
    ),
    MNEMO_MAX_BODY_BYTES_IN_FLIGHT: envVar(int(1024, 16 * 1024 * MIB).default(64 * MIB)).describe(
      'Request-body bytes all requests together may hold at once, counted as they arrive; past it 503 OVERLOADED. One agent may hold half of it (or the largest body a route takes, if more); past that 429 AGENT_BUSY',
    ),
    MNEMO_MCP_MAX_BATCH: envVar(int(1, 1000).default(20)).describe(
      'Most JSON-RPC messages in one /mcp batch; larger batches get a JSON-RPC error -32600 (HTTP 400)',
    ),
    MNEMO_LOG_LEVEL: envVar(
      z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ).describe('pino log level'),
    MNEMO_CHUNK_TOKENS: envVar(int(32, 8192).default(400)).describe(
      'Target chunk size in estimated tokens (CJK char = 1 token)',
    ),
    MNEMO_CHUNK_OVERLAP_TOKENS: envVar(int(0, 4096).default(80)).describe('Tokens repeated between consecutive chunks'),
    MNEMO_MAX_FILE_BYTES: envVar(int(1024, 1024 * MIB).default(8 * MIB)).describe(
      'Files larger than this are skipped by the indexer (logged), in bytes',
    ),
    MNEMO_INDEX_ON_START: envVar(bool(true)).describe('Run a sync when the service starts'),
    MNEMO_EXTRA_PATHS_WRITABLE: envVar(bool(false)).describe(
      'Let PUT/POST/DELETE /files write markdown under MNEMO_EXTRA_PATHS too (MEMORY.md and memory/ always are)',
    ),
    MNEMO_SESSIONS_DIR: envVar(z.string().optional()).describe(
      'Folder of session transcripts (*.jsonl, one {role, content, ts?} per line), indexed as source "sessions"',
    ),
    MNEMO_WATCH: envVar(bool(true)).describe('Watch the workspace and sync changes made on disk'),
    MNEMO_SYNC_DEBOUNCE_MS: envVar(int(0, 600_000).default(1500)).describe(
      'Quiet time after the last change on disk before a sync starts, in ms',
    ),
    MNEMO_SYNC_RESCAN_MS: envVar(int(0, 86_400_000).default(300_000)).describe(
      'Full rescan interval that catches changes the watcher missed, in ms (0: never)',
    ),
    MNEMO_SEARCH_MAX_RESULTS: envVar(int(1, 100).default(6)).describe('Default maxResults of /search'),
    MNEMO_SEARCH_MIN_SCORE: envVar(num(0, 1).default(0.35)).describe('Default minScore of /search'),
    MNEMO_SEARCH_LOG: envVar(z.enum(['on', 'off']).default('on')).describe(
      'Keep a log of searches (time, agent, user, query, results, best score, latency) for GET /searches; off: none',
    ),
    MNEMO_SEARCH_LOG_DAYS: envVar(int(1, 3650).default(30)).describe('Days a logged search is kept'),
    MNEMO_SEARCH_LOG_MAX_PER_AGENT: envVar(int(100, 10_000_000).default(10_000)).describe(
      'Newest searches kept per agent in the search log (older ones are pruned every hour)',
    ),
    MNEMO_SEARCH_WORKERS: envVar(int(0, 64).default(2)).describe(
      'Worker threads that run searches on read-only connections, checkpoint the indexes and chunk new files for indexing (0: all on the main thread)',
    ),
    // A quantised copy costs 1 byte per dimension and chunk, split over the search workers
    // (each holds the shards it scans); below 10,000 chunks sqlite-vec's exact scan takes a
    // few ms anyway (BENCHMARKS.md, issue 35).
    MNEMO_SEARCH_QUANTIZED_FROM: envVar(int(0, 1_000_000_000).default(10_000)).describe(
      'Chunks from which a vector search without filters and with a sparse query vector (the hash provider) pre-selects by int8 copies of the vectors in memory, then scores exactly (0: never)',
    ),
    MNEMO_SEARCH_VECTOR_WEIGHT: envVar(num(0, 1).default(0.7)).describe('Weight of vectorScore in hybrid scores'),
    MNEMO_SEARCH_TEXT_WEIGHT: envVar(num(0, 1).default(0.3)).describe('Weight of textScore in hybrid scores'),
    MNEMO_SEARCH_CANDIDATE_MULTIPLIER: envVar(int(1, 50).default(4)).describe(
      'Candidates each side fetches per requested result',
    ),
    MNEMO_SEARCH_MAX_CANDIDATES: envVar(int(1, 1000).default(200)).describe('Most candidates each side fetches'),
    // Off by default: on the dev sets neither helped (BENCHMARKS.md, "Ranking options").
    MNEMO_SEARCH_HALF_LIFE_DAYS: envVar(num(0, 36500).default(0)).describe(
      'Default halfLifeDays of /search: dated day files lose half their score per this many days of age (0 = no decay)',
    ),
    MNEMO_SEARCH_MMR: envVar(bool(false)).describe('Default mmr of /search: diversify results (MMR)'),
    MNEMO_SEARCH_MMR_LAMBDA: envVar(num(0, 1).default(0.7)).describe(
      'Default mmrLambda of /search: 1 is score order, lower favours results unlike those above',
    ),

    MNEMO_EMBED_PROVIDER: envVar(z.enum(['auto', 'openai', 'local', 'hash', 'none']).default('auto')).describe(
      'Embedding provider: auto picks local if MNEMO_LOCAL_MODEL_DIR exists, else openai if MNEMO_EMBED_BASE_URL is set, else none (keyword search only)',
    ),
    MNEMO_EMBED_BASE_URL: envVar(z.url().optional()).describe(
      'OpenAI-compatible API base URL, e.g. https://api.openai.com/v1 or https://dashscope.aliyuncs.com/compatible-mode/v1',
    ),
    MNEMO_EMBED_API_KEY: envVar(z.string().optional()).describe('API key for the embedding endpoint (never logged)'),
    MNEMO_EMBED_MODEL: envVar(z.string().optional()).describe(
      'Embedding model (openai default: text-embedding-3-small)',
    ),
    MNEMO_EMBED_DIMENSIONS: envVar(int(1, 8192).optional()).describe(
      'Vector dimensions; also sent to the API. Unset: known for common models, else asked of the server (keyword search until it answers)',
    ),
    MNEMO_EMBED_BATCH_SIZE: envVar(int(1, 2048).default(64)).describe('Most texts per embedding request'),
    MNEMO_EMBED_BATCH_TOKENS: envVar(int(100, 1_000_000).default(8000)).describe(
      'Most estimated tokens per embedding request',
    ),
    MNEMO_EMBED_CONCURRENCY: envVar(int(1, 32).default(2)).describe('Embedding requests in flight during indexing'),
    MNEMO_EMBED_TIMEOUT_MS: envVar(int(100, 600_000).default(30_000)).describe('Time limit per embedding request'),
    MNEMO_EMBED_QUERY_TIMEOUT_MS: envVar(int(100, 60_000).default(3000)).describe(
      'Time limit for embedding a search query; past it the search answers by keyword (degraded)',
    ),
    MNEMO_EMBED_MAX_RETRIES: envVar(int(0, 10).default(3)).describe(
      'Retries of an embedding request on 429/5xx/network errors',
    ),
    MNEMO_EMBED_CACHE_MAX_ENTRIES: envVar(int(0, 100_000_000).default(500_000)).describe(
      'Embeddings kept in the cache (least recently used are dropped)',
    ),
    MNEMO_LOCAL_MODEL_DIR: envVar(z.string().optional()).describe(
      'Directory of a local ONNX embedding model (config.json, tokenizer.json, onnx/model*.onnx)',
    ),
    MNEMO_LOCAL_ALLOW_DOWNLOAD: envVar(bool(false)).describe('Let local models download missing files from the hub'),
    MNEMO_LOCAL_QUERY_PREFIX: envVar(z.string().optional()).describe(
      'Text put before queries (default by model: "query: " for e5)',
    ),
    MNEMO_LOCAL_PASSAGE_PREFIX: envVar(z.string().optional()).describe(
      'Text put before chunks (default by model: "passage: " for e5)',
    ),
    // More dimensions mean fewer hash collisions and better hybrid quality (1,024 scored
    // SciFact nDCG@10 0.669 against 0.623 at 256) at the same factor in vector search cost;
    // 256 keeps 100,000 chunks within the latency target (BENCHMARKS.md).
    MNEMO_HASH_DIMS: envVar(int(32, 4096).default(256)).describe('Dimensions of the hash provider'),
    MNEMO_VECTOR_BACKEND: envVar(z.enum(['auto', 'sqlite-vec', 'scan']).default('auto')).describe(
      'Vector search: sqlite-vec, or scan (exact, in memory); auto uses sqlite-vec when it loads',
    ),

    MNEMO_RERANK_PROVIDER: envVar(z.enum(['none', 'http', 'dashscope', 'local']).default('none')).describe(
      'Reranker: http (Cohere/Jina/TEI /rerank), dashscope (gte-rerank) or local (ONNX cross-encoder)',
    ),
    MNEMO_RERANK_BASE_URL: envVar(z.url().optional()).describe('Rerank API base URL (dashscope has a default)'),
    MNEMO_RERANK_API_KEY: envVar(z.string().optional()).describe('API key for the reranker (never logged)'),
    MNEMO_RERANK_MODEL: envVar(z.string().optional()).describe('Rerank model (dashscope default: gte-rerank)'),
    MNEMO_RERANK_LOCAL_MODEL_DIR: envVar(z.string().optional()).describe('Directory of a local ONNX cross-encoder'),
    MNEMO_RERANK_TIMEOUT_MS: envVar(int(100, 60_000).default(3000)).describe(
      'Time limit for a rerank call; past it the merged order is returned (degraded)',
    ),
    MNEMO_RERANK_TOP_N: envVar(int(1, 200).default(20)).describe('Candidates sent to the reranker'),
    MNEMO_SEARCH_EXPAND: envVar(bool(false)).describe(
      'Query expansion for searches that do not say `expand` (lex/vec/hyde variants fused with the query)',
    ),
    MNEMO_EXPAND_BASE_URL: envVar(z.url().optional()).describe(
      'OpenAI-compatible chat API for query variants (mnemo calls <url>/chat/completions); unset: heuristic variants',
    ),
    MNEMO_EXPAND_API_KEY: envVar(z.string().optional()).describe('API key for the expansion chat API (never logged)'),
    MNEMO_EXPAND_API_KEY_FILE: envVar(z.string().optional()).describe(
      'File holding MNEMO_EXPAND_API_KEY (a Docker or Kubernetes secret); not with MNEMO_EXPAND_API_KEY',
    ),
    MNEMO_EXPAND_MODEL: envVar(z.string().optional()).describe('Chat model for query variants (needed with the URL)'),
    MNEMO_EXPAND_TIMEOUT_MS: envVar(int(100, 60_000).default(3000)).describe(
      'Time limit for the variants of one query; past it the plain query is searched (degraded.expand)',
    ),
    MNEMO_EXPAND_CACHE_MAX_ENTRIES: envVar(int(0, 1_000_000).default(1000)).describe(
      'Queries whose variants are remembered (LRU by model and query); 0 = none',
    ),
    MNEMO_SNIPPET_MAX_CHARS: envVar(int(80, 10_000).default(700)).describe(
      'Longest snippet in a search result, in characters',
    ),
    MNEMO_SNIPPET_BYTES_PER_SEARCH: envVar(int(1024, 64 * MIB).default(64 * 1024)).describe(
      'Snippet bytes (UTF-8) one search answer carries in all; past it snippets are shortened or left empty, and snippetsShortened says how many',
    ),
  })
  .superRefine((env, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message })
    if (env.MNEMO_CHUNK_OVERLAP_TOKENS >= env.MNEMO_CHUNK_TOKENS) {
      issue('MNEMO_CHUNK_OVERLAP_TOKENS', 'must be smaller than MNEMO_CHUNK_TOKENS')
    }
    if (env.MNEMO_SEARCH_VECTOR_WEIGHT + env.MNEMO_SEARCH_TEXT_WEIGHT === 0) {
      issue('MNEMO_SEARCH_VECTOR_WEIGHT', 'and MNEMO_SEARCH_TEXT_WEIGHT cannot both be 0')
    }
    const largestBody = Math.max(env.MNEMO_BODY_LIMIT_BYTES, env.MNEMO_MAX_FILE_BYTES)
    if (env.MNEMO_MAX_BODY_BYTES_IN_FLIGHT < largestBody) {
      issue(
        'MNEMO_MAX_BODY_BYTES_IN_FLIGHT',
        `must be at least the largest body a route accepts (${largestBody} bytes: MNEMO_BODY_LIMIT_BYTES, MNEMO_MAX_FILE_BYTES)`,
      )
    }
    if (env.MNEMO_BODY_IDLE_TIMEOUT_MS !== undefined && env.MNEMO_BODY_IDLE_TIMEOUT_MS > env.MNEMO_REQUEST_TIMEOUT_MS) {
      issue('MNEMO_BODY_IDLE_TIMEOUT_MS', `must be at most MNEMO_REQUEST_TIMEOUT_MS (${env.MNEMO_REQUEST_TIMEOUT_MS})`)
    }
    if (env.MNEMO_EMBED_PROVIDER === 'openai' && !env.MNEMO_EMBED_BASE_URL) {
      issue('MNEMO_EMBED_BASE_URL', 'is required when MNEMO_EMBED_PROVIDER=openai')
    }
    if (env.MNEMO_EMBED_PROVIDER === 'local' && !env.MNEMO_LOCAL_MODEL_DIR) {
      issue('MNEMO_LOCAL_MODEL_DIR', 'is required when MNEMO_EMBED_PROVIDER=local')
    }
    if (env.MNEMO_RERANK_PROVIDER === 'http' && !env.MNEMO_RERANK_BASE_URL) {
      issue('MNEMO_RERANK_BASE_URL', 'is required when MNEMO_RERANK_PROVIDER=http')
    }
    if (env.MNEMO_RERANK_PROVIDER === 'dashscope' && !env.MNEMO_RERANK_API_KEY) {
      issue('MNEMO_RERANK_API_KEY', 'is required when MNEMO_RERANK_PROVIDER=dashscope')
    }
    if (env.MNEMO_EXPAND_BASE_URL && !env.MNEMO_EXPAND_MODEL) {
      issue('MNEMO_EXPAND_MODEL', 'is required when MNEMO_EXPAND_BASE_URL is set')
    }
    if (env.MNEMO_RERANK_PROVIDER === 'local' && !env.MNEMO_RERANK_LOCAL_MODEL_DIR) {
      issue('MNEMO_RERANK_LOCAL_MODEL_DIR', 'is required when MNEMO_RERANK_PROVIDER=local')
    }
  })

export type Env = z.output<typeof envSchema>
