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
    MNEMO_EXTRA_PATHS: envVar(z.string().optional()).describe(
      'Comma-separated extra files or folders to index, inside the workspace (relative or absolute)',
    ),
    MNEMO_API_TOKEN: envVar(z.string().optional()).describe(
      'When set, every route except /health requires "Authorization: Bearer <token>"',
    ),
    MNEMO_DOCS_PUBLIC: envVar(bool(false)).describe(
      'Serve /docs and /openapi.json without the API token (they hold no data)',
    ),
    MNEMO_BODY_LIMIT_BYTES: int(1024, 256 * MIB)
      .default(MIB)
      .describe('Largest accepted request body, in bytes'),
    MNEMO_REQUEST_TIMEOUT_MS: int(1000, 600_000)
      .default(30_000)
      .describe('Time limit for receiving a whole request, in ms'),
    MNEMO_LOG_LEVEL: envVar(
      z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ).describe('pino log level'),
    MNEMO_CHUNK_TOKENS: int(32, 8192)
      .default(400)
      .describe('Target chunk size in estimated tokens (CJK char = 1 token)'),
    MNEMO_CHUNK_OVERLAP_TOKENS: envVar(int(0, 4096).default(80)).describe('Tokens repeated between consecutive chunks'),
    MNEMO_MAX_FILE_BYTES: envVar(int(1024, 1024 * MIB).default(8 * MIB)).describe(
      'Files larger than this are skipped by the indexer (logged), in bytes',
    ),
    MNEMO_INDEX_ON_START: envVar(bool(true)).describe('Run a sync when the service starts'),
    MNEMO_SEARCH_MAX_RESULTS: envVar(int(1, 100).default(6)).describe('Default maxResults of /search'),
    MNEMO_SEARCH_MIN_SCORE: envVar(num(0, 1).default(0.35)).describe('Default minScore of /search'),
    MNEMO_SEARCH_WORKERS: envVar(int(0, 64).default(2)).describe(
      'Worker threads that run searches on read-only connections (0: on the main thread)',
    ),
    MNEMO_SNIPPET_MAX_CHARS: envVar(int(80, 10_000).default(700)).describe(
      'Longest snippet in a search result, in characters',
    ),
  })
  .superRefine((env, ctx) => {
    if (env.MNEMO_CHUNK_OVERLAP_TOKENS >= env.MNEMO_CHUNK_TOKENS) {
      ctx.addIssue({
        code: 'custom',
        path: ['MNEMO_CHUNK_OVERLAP_TOKENS'],
        message: 'must be smaller than MNEMO_CHUNK_TOKENS',
      })
    }
  })

export type Env = z.output<typeof envSchema>
