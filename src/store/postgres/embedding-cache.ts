/**
 * The embedding cache (store/port.ts) in PostgreSQL, shared by every replica: a text one
 * replica embedded is never paid for again by another. Bounded like the SQLite one: past
 * `maxEntries`, the least recently used are deleted (checked after each put).
 */
import type { EmbeddingCache } from '../port.js'
import type { Pool, Tables } from './database.js'
import type { Guard } from './guard.js'

/** Deleting the oldest entries in steps, so one prune does not hold its locks for long. */
const PRUNE_STEP = 10_000

const toBytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength)
const toVector = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))

export function createPgEmbeddingCache(
  pool: Pool,
  t: Tables,
  guard: Guard,
  opts: { maxEntries: number; now?: (() => number) | undefined },
): EmbeddingCache {
  const now = opts.now ?? Date.now
  const count = async () =>
    (await pool.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t.embeddings}`)).rows[0]?.n ?? 0
  // Every statement here may run twice: reads, upserts and deletes of the oldest.
  return {
    get: (provider, model, hashes) => guard.retrying(() => get(provider, model, hashes)),
    put: (provider, model, items) => guard.retrying(() => put(provider, model, items)),
    size: () => guard.retrying(count),
    close: () => undefined,
  }

  async function get(provider: string, model: string, hashes: readonly string[]) {
    if (hashes.length === 0) return new Map<string, Float32Array>()
    const { rows } = await pool.query<{ content_hash: string; vector: Buffer }>(
      `UPDATE ${t.embeddings} SET used_at_ms = $4
         WHERE provider = $1 AND model = $2 AND content_hash = ANY($3::text[])
         RETURNING content_hash, vector`,
      [provider, model, hashes, now()],
    )
    return new Map(rows.map((r) => [r.content_hash, toVector(r.vector)]))
  }

  async function put(provider: string, model: string, items: readonly { hash: string; vector: Float32Array }[]) {
    if (items.length === 0) return
    await pool.query(
      `INSERT INTO ${t.embeddings} (provider, model, content_hash, vector, used_at_ms)
         SELECT $1, $2, u.h, u.v, $5 FROM unnest($3::text[], $4::bytea[]) AS u(h, v)
         ON CONFLICT (provider, model, content_hash) DO UPDATE SET vector = excluded.vector, used_at_ms = excluded.used_at_ms`,
      [provider, model, items.map((i) => i.hash), items.map((i) => toBytes(i.vector)), now()],
    )
    for (let over = (await count()) - opts.maxEntries; over > 0; over = (await count()) - opts.maxEntries) {
      await pool.query(
        `DELETE FROM ${t.embeddings} WHERE (provider, model, content_hash) IN
             (SELECT provider, model, content_hash FROM ${t.embeddings} ORDER BY used_at_ms LIMIT $1)`,
        [Math.min(PRUNE_STEP, over)],
      )
    }
  }
}
