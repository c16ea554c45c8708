/** GET /health and GET /ready. */
import { z } from 'zod'

export const Health = z.object({ status: z.literal('ok'), uptimeMs: z.number().int() }).meta({ id: 'Health' })

export const Ready = z
  .object({
    ready: z.boolean(),
    checks: z
      .object({
        index: z.enum(['open', 'closed']),
        initialSync: z.enum(['pending', 'done']),
        lastSync: z.enum(['none', 'ok', 'failed']),
        folder: z
          .enum(['held', 'replaced'])
          .describe('replaced: MNEMO_WORKSPACE was replaced after start (a symlink or another folder): refused'),
        workspace: z
          .enum(['writable', 'read-only'])
          .describe('Whether the service may write the workspace; read-only: writes answer 403, reads and search work'),
        embedder: z
          .enum(['none', 'ready', 'pending'])
          .describe('pending: the embedding server has not answered yet; keyword search works meanwhile (GET /index)'),
        engine: z
          .enum(['sqlite', 'postgres'])
          .describe('Where the indexes live: SQLite files in MNEMO_DATA_DIR, or PostgreSQL (MNEMO_DATABASE_URL)'),
        database: z
          .enum(['ok', 'unreachable'])
          .describe(
            "Whether the engine answers; unreachable (PostgreSQL down, or mnemo's schema gone from it): not ready, searches answer 503",
          ),
      })
      .optional()
      .describe('What readiness waits for; shown when the request carries a token (or none is configured)'),
  })
  .meta({ id: 'Ready' })
