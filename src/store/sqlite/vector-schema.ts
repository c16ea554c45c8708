/**
 * Vector storage. With sqlite-vec, chunks_vec is a vec0 table (exact cosine KNN in C) whose
 * `source`, `path`, `dated_ms`, `entry_status` and `entry_origin` metadata columns let filters
 * apply inside the KNN scan, partitioned
 * into shards that workers scan in parallel; with `floatCopy`, chunk_vectors and
 * vector_changes beside it serve the quantised pre-selection (below). Without it,
 * chunk_vectors holds raw float32 blobs that vector-scan.ts searches in memory. The meta row
 * `vectors` records which table and how many dimensions; opening the index with another
 * backend or dimension drops the vectors and marks every chunk as needing one, so vectors
 * of different models or sizes can never be mixed.
 */
import type { Db } from './database.js'
import type { VectorBackend, VectorConfig, VectorLayout } from '../port.js'

/**
 * Vectors are split into this many shards (chunk id modulo shards, a vec0 partition key), so
 * the search workers can scan them in parallel: exact KNN is a full scan, and on 100,000
 * chunks one core needs ~35 ms for it.
 */
export const VECTOR_SHARDS = 4

/**
 * Vectors per stored block of a vec0 table. A KNN query reads every block of its shard
 * whole, however few vectors it holds: at sqlite-vec's default of 1,024 (1 MiB per block at
 * 256 dimensions) an index of 100 chunks took 2.5 ms per query and 4.6 MB on disk, at 256
 * it takes 0.24 ms and next to nothing, and 100,000 chunks scan as fast (76 → 77 ms for
 * the four shards on one core; scratch measurement, docs in BENCHMARKS.md). Small indexes
 * are the common case: an agent's, and each user's inside an agent.
 */
export const VEC0_CHUNK_SIZE = 256

/** The layout of every index made for `backend`: vec0 blocks of VEC0_CHUNK_SIZE, with the float copy. */
export const sqliteVectorLayout = (backend: VectorBackend): VectorLayout =>
  backend === 'sqlite-vec'
    ? { backend, shards: VECTOR_SHARDS, chunkSize: VEC0_CHUNK_SIZE, floatCopy: true }
    : { backend, shards: VECTOR_SHARDS }

const META_KEY = 'vectors'

const DROP = `
DROP TABLE IF EXISTS chunks_vec;
DROP TABLE IF EXISTS chunk_vectors;
DROP TABLE IF EXISTS vector_changes;
`

const FLOATS_DDL = `CREATE TABLE IF NOT EXISTS chunk_vectors (
  chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
  embedding BLOB NOT NULL
) STRICT`

/**
 * Beside a vec0 table, with `floatCopy` (issue 35): the floats again by chunk id, which
 * score the candidates a search thread's quantised copy of the vectors pre-selects
 * (quantized-vectors.ts) at one B-tree lookup each (a vec0 row is read through its block's
 * overflow chain, 4–10× slower); and the chunk ids whose vector was stored or deleted, in
 * commit order, so that the quantised copy catches up with what changed instead of reading
 * every vector again. Only the newest changes are kept (vector-repo.ts); a copy older than
 * the oldest kept reads everything again.
 */
const FLOAT_COPY_DDL = `${FLOATS_DDL};
CREATE TABLE IF NOT EXISTS vector_changes (
  seq INTEGER PRIMARY KEY,
  chunk_id INTEGER NOT NULL
) STRICT`

function ddl(cfg: NonNullable<VectorConfig>): string {
  return cfg.backend === 'sqlite-vec'
    ? `CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vec USING vec0(
         shard integer partition key, embedding float[${cfg.dims}] distance_metric=cosine, source text, path text,
         dated_ms integer, entry_status text, entry_origin text${cfg.chunkSize ? `, chunk_size=${cfg.chunkSize}` : ''});
       ${cfg.floatCopy ? FLOAT_COPY_DDL : ''}`
    : FLOATS_DDL
}

/** The vector configuration the index was last opened with (null: none). */
export function storedVectorConfig(db: Db): VectorConfig {
  const row = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(META_KEY)
  return row ? (JSON.parse(row.value) as VectorConfig) : null
}

export function sameVectorConfig(a: VectorConfig, b: VectorConfig): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/**
 * Creates the vector table for `cfg`, replacing vectors stored under another config.
 * Throws when the old table cannot be dropped (a vec0 table without sqlite-vec loaded); the
 * caller then starts a new index file.
 */
export function ensureVectorTable(db: Db, cfg: VectorConfig): { reset: boolean } {
  const stored = storedVectorConfig(db)
  const same = sameVectorConfig(stored, cfg)
  db.transaction(() => {
    if (!same) {
      db.exec(DROP)
      db.exec('UPDATE chunks SET has_vector = 0')
      db.prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ).run(META_KEY, JSON.stringify(cfg))
    }
    if (cfg) db.exec(ddl(cfg))
  })()
  return { reset: !same && stored !== null }
}
