/** POST /index and GET /index (SPEC §2, §5). */
import { z } from 'zod'
import { QueryFlag } from './common.schema.js'

export const IndexRequest = z
  .strictObject({
    full: z.boolean().default(false).describe('Re-chunk and re-index every file instead of only changed ones'),
  })
  .default({ full: false })
  .meta({ example: { full: false } })

export const IndexQuery = z.strictObject({
  wait: QueryFlag.optional().describe('"true": answer when the sync is done (200) instead of at once (202)'),
})

const SourceCounts = z.object({ files: z.number().int(), chunks: z.number().int() })

export const LastSync = z
  .object({
    at: z.string().describe('When it finished (ISO 8601)'),
    ok: z.boolean(),
    full: z.boolean().describe('A full rebuild (built in a new index and swapped in)'),
    reason: z.string().describe('What triggered it: startup, api, watch, rescan, index settings changed, ...'),
    durationMs: z.number(),
    error: z.string().optional().describe('Why it failed'),
    scanned: z.number().int().optional(),
    indexed: z.number().int().optional(),
    unchanged: z.number().int().optional(),
    deleted: z.number().int().optional(),
    skipped: z.number().int().optional().describe('Files over MNEMO_MAX_FILE_BYTES'),
    chunks: z.number().int().optional().describe('Chunks written'),
    malformedLines: z.number().int().optional().describe('Session transcript lines that were not JSON (skipped)'),
    unreadable: z
      .number()
      .int()
      .optional()
      .describe('Files and folders the service may not read (permissions): skipped, listed in fileErrors'),
    fileErrors: z.array(z.object({ path: z.string(), error: z.string() })).optional(),
    embedded: z.number().int().optional().describe('Chunk texts sent to the embedding provider'),
    embedCacheHits: z.number().int().optional().describe('Vectors taken from the embedding cache'),
    embeddingTokens: z.number().int().optional().describe('Tokens the embedding provider reported'),
    embedError: z.string().optional().describe('Why embedding stopped; those chunks wait in vectorsPending'),
  })
  .meta({ id: 'LastSync' })

export const IndexStatus = z
  .object({
    files: z.number().int(),
    chunks: z.number().int(),
    sources: z.object({ memory: SourceCounts, sessions: SourceCounts }),
    embedding: z.object({
      provider: z.string().describe('Embedding provider in use ("none": keyword only)'),
      model: z.string().nullable(),
      dims: z.number().int().nullable(),
      state: z
        .enum(['none', 'ready', 'pending'])
        .describe(
          'pending: the server of a model whose dimensions mnemo must ask has not answered yet; searches run by ' +
            'keyword (degraded.vector says why) and it is asked again in the background, 1 s after a failure, ' +
            'doubling to every 60 s. Once it answers, the index is rebuilt with vectors',
        ),
      error: z.string().optional().describe('While pending: why the last probe failed'),
      nextProbeAt: z.string().optional().describe('While pending: when the server is asked next (ISO 8601)'),
    }),
    vectorBackend: z
      .enum(['none', 'sqlite-vec', 'scan', 'pgvector'])
      .describe(
        'How vectors are searched: sqlite-vec, scan (exact in-memory fallback when the extension does not load), or pgvector (PostgreSQL)',
      ),
    vectorsPending: z.number().int().describe('Chunks waiting for a vector (searchable by keyword meanwhile)'),
    engine: z
      .object({
        kind: z
          .enum(['sqlite', 'postgres'])
          .describe('Where indexes live: SQLite files in MNEMO_DATA_DIR, or PostgreSQL (MNEMO_DATABASE_URL)'),
        ok: z.boolean().describe('Whether the engine answers now'),
        error: z.string().optional().describe('Why it does not'),
      })
      .describe('The storage engine and its health'),
    keywordTokenizer: z
      .string()
      .describe(
        "Analyzer version and how the engine indexes keyword terms (FTS5's tokenizer, or PostgreSQL term arrays)",
      ),
    dirty: z.boolean().describe('Changes seen on disk (or requested) that no sync has picked up yet'),
    watching: z.boolean().describe('The file watcher is running (MNEMO_WATCH)'),
    watch: z
      .object({
        state: z
          .enum(['watching', 'off', 'restarting', 'rescanning'])
          .describe(
            'watching: changes on disk are seen at once; off: MNEMO_WATCH=false (or no folder yet); restarting: ' +
              'the watcher failed and restarts after a pause; rescanning: no inotify watch was left, so the folder ' +
              'is rescanned every rescanEveryMs instead (and watched again once watches are free)',
          ),
        reason: z.string().optional().describe('Why the watcher is not running (an error code)'),
        rescanEveryMs: z.number().int().optional().describe('Period of the rescans while rescanning, in ms'),
      })
      .describe('How changes made on disk are noticed'),
    syncing: z.boolean(),
    rebuilding: z.boolean(),
    queued: z.boolean().describe('Another sync will run after the current one'),
    completedSyncs: z.number().int().describe('Syncs and rebuilds finished (or failed) since the service started'),
    progress: z
      .object({
        phase: z.enum(['scanning', 'indexing', 'embedding', 'deleting']),
        full: z.boolean().describe('A full rebuild'),
        reason: z.string(),
        filesDone: z.number().int(),
        filesTotal: z.number().int().describe('Files to look at (0 while scanning)'),
        chunksEmbedded: z.number().int(),
        chunksToEmbed: z.number().int().describe('Chunks sent for embedding so far (0 without a provider)'),
        startedAt: z.string().describe('ISO 8601'),
      })
      .nullable()
      .describe('The sync or rebuild running now (also logged every 5 s as "sync progress"); null when idle'),
    lastSync: LastSync.nullable(),
    embeddingCacheEntries: z
      .number()
      .int()
      .optional()
      .describe(
        'Vectors in the embedding cache, which every agent shares. Shown to the admin token (or with no token ' +
          'configured) only: its growth would tell an agent whether another agent holds a text',
      ),
  })
  .meta({ id: 'IndexStatus' })
