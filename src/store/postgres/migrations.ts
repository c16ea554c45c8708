/**
 * The PostgreSQL schema, applied at start-up under an advisory lock so several replicas
 * starting at once apply it once. Everything lives in one schema (MNEMO_DATABASE_SCHEMA,
 * default `mnemo`); every row of an index carries its index id, and a space names its live
 * index (spaces.live), so a rebuild writes a new index beside the live one and switches in
 * one transaction.
 *
 * Keyword search runs over mnemo's own analysed terms (Chinese bigrams included), not the
 * database's parsers: each chunk keeps the keys of its distinct terms (term-hash.ts: two
 * hashes of the term and the index's id in an int8, so one space's lookups do not read
 * another's postings) in ascending order under a GIN index, so scoring finds a term by
 * binary search, and their counts per column in `counts` for BM25, aligned with `keys`: the
 * body and heading counts of keys[i] at counts[2i - 1] and counts[2i] (kept uncompressed
 * in the row: scoring reads it for every candidate). Document frequencies and corpus size
 * are kept as counts (terms, by the term's text, and indexes) in the transactions that
 * change them.
 */
import { ConfigError } from '../../shared/config-error.js'
import type { Logger } from '../../shared/logger.js'
import { inTransaction, lockKey, type Pool, type Queryable, type Tables } from './database.js'
import { termCheck, termHash, termKeySql } from './term-hash.js'

/**
 * Bumped when the tables change; an older schema is upgraded, a newer one refused. 2 adds
 * chunks.dated_ms (time ranges), 3 the chunk's entry (entry_status, entry_observed,
 * entry_key, entry_origin: domain/entry-meta.ts), 4 entry_hash (files/entry-text.ts) and the
 * lookups of a write by hash and key, 5 the impact lists of common terms (postings,
 * terms.floor and terms.listed: impact-lists.ts), 6 `counts` (int4 pairs aligned with
 * `terms`) in place of `tf` (a jsonb of `{"term": [body, heading]}`: 5 of a row's 7 KB, and
 * 40 % of a cold index's database time went to writing those rows), converted in place, 7
 * `hashes` (NULL on the rows before it: their terms stay in text order, and are found by a
 * scan) and terms.reference (impact lists against the index's average chunk length), 8
 * `checks` (NULL on the rows before it: their terms' keys are compared instead), 9 body
 * terms by line (text/line-terms.ts) in the same columns: rows before it are read either
 * way, and a mnemo from before, whose term scans split on spaces only, refuses the schema
 * rather than count its terms wrong, 10 indexes.lists and list_build (impact lists paused by
 * a pass into an empty index: a mnemo from before would not read them, and would leave
 * lists stale), 11 `keys` (int8, term-hash.ts) in place of `terms` (text keys), `hashes` and
 * `checks`, converted in place (keysFromTerms), which a mnemo from before cannot read.
 */
export const PG_SCHEMA_VERSION = 11
/**
 * What the chunk rows of an index hold, in the index identity: a different one makes the
 * first sync rebuild the index. Schema 6 changed only how the same counts are stored, and
 * converts them in place, so indexes of schema 5 stay as they are; 6 is schema 7's terms in
 * hash order: an index written before is rebuilt once in the background, and searched as it
 * is meanwhile; 7 is schema 8's checks, rebuilt the same way.
 */
export const PG_CHUNKS_VERSION = 7
/** PostgreSQL 15 and later. */
const MIN_SERVER_VERSION = 150000
/** pgvector 0.7 and later (HNSW with cosine distance, iterative scans from 0.8). */
const MIN_PGVECTOR = [0, 7] as const

/**
 * The chunk columns scoring reads in every candidate compressed last (STORAGE MAIN: the
 * texts, read for the winners only, go first), and statistics only on the columns queries
 * filter or join on: ANALYZE sampled the texts and counts no query filters on for a third of
 * its time in a cold index. Nor on `keys`: every query tests them against keys computed in
 * the statement (`keys && ARRAY[...]`), which the planner cannot look up in its statistics,
 * and collecting the most common elements of the text keys before them (160 a row) was a
 * quarter of ANALYZE's time at 100,001 chunks (1.72 s against 1.26 s). Altered only when
 * not yet so (ALTER TABLE would lock out searches at every start); a table of an older
 * schema has no `keys` (nor, before 6, `counts`) yet, and gets them here after the upgrade
 * adds them.
 */
const chunkColumnSettings = (t: Tables) => `
DO $$ BEGIN
  IF (SELECT COUNT(*) FROM pg_attribute WHERE attrelid = '${t.chunks}'::regclass AND attname IN ('counts', 'keys')
      AND NOT attisdropped) < 2 THEN
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '${t.chunks}'::regclass
      AND attname IN ('keys', 'counts') AND attstorage <> 'm') THEN
    ALTER TABLE ${t.chunks} ALTER COLUMN keys SET STORAGE MAIN, ALTER COLUMN counts SET STORAGE MAIN;
  END IF;
  -- (attstattarget is NULL for the default from PostgreSQL 17)
  IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '${t.chunks}'::regclass
      AND attname IN ('text', 'headings', 'body_terms', 'heading_terms', 'content_hash', 'counts', 'keys')
      AND COALESCE(attstattarget, -1) <> 0) THEN
    ALTER TABLE ${t.chunks} ALTER COLUMN text SET STATISTICS 0, ALTER COLUMN headings SET STATISTICS 0,
      ALTER COLUMN body_terms SET STATISTICS 0, ALTER COLUMN heading_terms SET STATISTICS 0,
      ALTER COLUMN content_hash SET STATISTICS 0, ALTER COLUMN counts SET STATISTICS 0,
      ALTER COLUMN keys SET STATISTICS 0;
  END IF;
END $$;`

function ddl(t: Tables): string {
  return `
CREATE TABLE IF NOT EXISTS ${t.version} (version int NOT NULL);
CREATE SEQUENCE IF NOT EXISTS ${t.readSeq};
CREATE TABLE IF NOT EXISTS ${t.indexes} (
  id bigserial PRIMARY KEY,
  space text NOT NULL,
  -- live: what searches read; building: a rebuild's new index; retired: waiting to be deleted
  state text NOT NULL CHECK (state IN ('live', 'building', 'retired')),
  vector_dims int,
  -- a rebuild's replica renews this while it builds; a lapsed lease is a dead rebuild
  lease_until timestamptz,
  -- when a retired index may be deleted: searches that began on it have ended by then
  drop_after timestamptz,
  chunk_rows bigint NOT NULL DEFAULT 0,
  token_sum bigint NOT NULL DEFAULT 0,
  -- the impact lists (impact-lists.ts): kept by every write, or paused (no write keeps or
  -- builds them) by a pass into the index while empty until the compaction after it built
  -- them (list-resume.ts)
  lists text NOT NULL DEFAULT 'kept' CHECK (lists IN ('kept', 'paused')),
  -- the number of the last build of paused lists begun: a build that finds another stops
  list_build bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS indexes_by_space ON ${t.indexes} (space, state);
CREATE TABLE IF NOT EXISTS ${t.spaces} (
  space text PRIMARY KEY,
  live bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS ${t.meta} (
  index_id bigint NOT NULL,
  key text NOT NULL,
  value text NOT NULL,
  PRIMARY KEY (index_id, key)
);
CREATE TABLE IF NOT EXISTS ${t.files} (
  index_id bigint NOT NULL,
  path text NOT NULL,
  source text NOT NULL,
  sha256 text NOT NULL,
  size_bytes bigint NOT NULL,
  mtime_ms double precision NOT NULL,
  line_count int NOT NULL,
  chunk_count int NOT NULL,
  indexed_at_ms double precision NOT NULL,
  read_seq bigint NOT NULL,
  PRIMARY KEY (index_id, path)
);
CREATE TABLE IF NOT EXISTS ${t.deleted} (
  index_id bigint NOT NULL,
  path text NOT NULL,
  read_seq bigint NOT NULL,
  PRIMARY KEY (index_id, path)
);
CREATE TABLE IF NOT EXISTS ${t.chunks} (
  id bigserial PRIMARY KEY,
  index_id bigint NOT NULL,
  path text NOT NULL,
  source text NOT NULL,
  start_line int NOT NULL,
  end_line int NOT NULL,
  text text NOT NULL,
  headings text NOT NULL,
  content_hash text NOT NULL,
  body_terms text NOT NULL,
  heading_terms text NOT NULL,
  token_count int NOT NULL,
  -- when the chunk was written, ms since the epoch (domain/chunk-date.ts); NULL: undated
  dated_ms bigint,
  -- the chunk's entry (domain/entry-meta.ts); entry_status NULL: in no entry (active)
  entry_status text,
  entry_observed text,
  entry_key text,
  entry_origin text,
  -- SHA-256 of the entry's folded text: a write finds its duplicate by it
  entry_hash text,
  -- the keys of the chunk's distinct terms (term-hash.ts), ascending: a term is found by
  -- binary search
  keys int8[] NOT NULL,
  counts int4[] NOT NULL,
  has_vector boolean NOT NULL DEFAULT false
-- a row is compressed or moved out of line only past a page, and keys and counts last
-- (STORAGE MAIN): keyword scoring reads them in hundreds of rows per search, and
-- decompressing them each time cost more than the rest of the search
) WITH (toast_tuple_target = 8160);
${chunkColumnSettings(t)}
CREATE INDEX IF NOT EXISTS chunks_by_path ON ${t.chunks} (index_id, path);
CREATE INDEX IF NOT EXISTS chunks_pending ON ${t.chunks} (index_id, id) WHERE NOT has_vector;
CREATE TABLE IF NOT EXISTS ${t.terms} (
  index_id bigint NOT NULL,
  term text COLLATE "C" NOT NULL,
  df int NOT NULL,
  -- the term's impact list (impact-lists.ts): every posting of an impact at least floor is
  -- in postings (NULL: no list), listed of them
  floor double precision,
  listed int NOT NULL DEFAULT 0,
  -- the chunk length the list's impacts normalise against (NULL: 250, lists before schema 7)
  reference double precision,
  PRIMARY KEY (index_id, term)
);
-- A term's postings read best first (impact descending) from the index alone: the counts
-- a candidate's score needs are in it.
CREATE TABLE IF NOT EXISTS ${t.postings} (
  index_id bigint NOT NULL,
  term text COLLATE "C" NOT NULL,
  impact double precision NOT NULL,
  chunk_id bigint NOT NULL,
  body int NOT NULL,
  heading int NOT NULL,
  tokens int NOT NULL,
  PRIMARY KEY (index_id, term, impact, chunk_id) INCLUDE (body, heading, tokens)
);
CREATE INDEX IF NOT EXISTS postings_by_chunk ON ${t.postings} (chunk_id);
CREATE TABLE IF NOT EXISTS ${t.embeddings} (
  provider text NOT NULL,
  model text NOT NULL,
  content_hash text NOT NULL,
  vector bytea NOT NULL,
  used_at_ms bigint NOT NULL,
  PRIMARY KEY (provider, model, content_hash)
);
CREATE INDEX IF NOT EXISTS embeddings_by_use ON ${t.embeddings} (used_at_ms);
CREATE TABLE IF NOT EXISTS ${t.searches} (
  id bigserial PRIMARY KEY,
  request_id text NOT NULL,
  at_ms bigint NOT NULL,
  agent text NOT NULL,
  user_id text,
  query text NOT NULL,
  mode text NOT NULL,
  results int NOT NULL,
  best_score double precision,
  abstained boolean NOT NULL,
  latency_ms double precision NOT NULL,
  degraded text NOT NULL,
  useful boolean,
  note text,
  feedback_at_ms bigint
);
CREATE INDEX IF NOT EXISTS searches_by_agent ON ${t.searches} (agent, at_ms);
CREATE INDEX IF NOT EXISTS searches_by_time ON ${t.searches} (at_ms);
CREATE INDEX IF NOT EXISTS searches_by_request ON ${t.searches} (request_id);
`
}

/**
 * Schema 5 → 6: each chunk's `tf` jsonb becomes `counts`, the same numbers in the order of
 * its `terms` (a key `<index id>:<term>` holds the counts of tf's `term`), in one pass over
 * the rows under the migration's lock: searches read the index as before from the commit.
 */
async function countsFromTf(client: Queryable, t: Tables): Promise<void> {
  await client.query(
    `ALTER TABLE ${t.chunks} ADD COLUMN IF NOT EXISTS counts int4[];
     UPDATE ${t.chunks} c SET counts = ARRAY(
       SELECT p.n FROM unnest(c.terms) WITH ORDINALITY AS k(key, at)
       CROSS JOIN LATERAL (SELECT c.tf -> substr(k.key, strpos(k.key, ':') + 1) AS v) f
       CROSS JOIN LATERAL (VALUES (1, (f.v ->> 0)::int4), (2, (f.v ->> 1)::int4)) AS p(side, n)
       ORDER BY k.at, p.side);
     ALTER TABLE ${t.chunks} ALTER COLUMN counts SET NOT NULL, DROP COLUMN tf;
     ${chunkColumnSettings(t)}`,
  )
}

/** Rows a batch of keysFromTerms's conversion in JavaScript reads and writes. */
const KEY_BATCH = 500

/**
 * A row's text keys (`<index id>:<term>`) and their counts as keys (term-hash.ts) and counts
 * in ascending order of the keys (pure): for the rows written before schema 8, whose hashes
 * and checks SQL cannot compute, and those with two terms of one termHash, in text order.
 */
export function keyedRow(indexId: number, textKeys: readonly string[], counts: readonly number[]) {
  const keyed = textKeys.map((key, i) => {
    const term = key.slice(key.indexOf(':') + 1)
    const low = (termCheck(term) ^ indexId) >>> 0
    return {
      key: (BigInt(termHash(term)) << 32n) | BigInt(low),
      body: counts[2 * i] ?? 0,
      heading: counts[2 * i + 1] ?? 0,
    }
  })
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return {
    keys: `{${keyed.map((k) => k.key.toString()).join(',')}}`,
    counts: `{${keyed.map((k) => `${k.body},${k.heading}`).join(',')}}`,
  }
}

/**
 * Schema 10 → 11: each chunk's text keys, hashes and checks become its int8 `keys`, under
 * the migration's lock, with the GIN index built again on them (after the rows, which is
 * faster than keeping it up row by row): a row with hashes and checks in SQL, in place (its
 * terms are already in their keys' order), the few others (written before schema 8, or with
 * two terms of one termHash) read and written back a batch at a time. Searches read the
 * index as before from the commit: 26 s for 100,001 chunks on two cores (BENCHMARKS.md).
 */
async function keysFromTerms(client: Queryable, t: Tables): Promise<void> {
  await client.query(
    `DROP INDEX IF EXISTS ${t.schema}.chunks_by_term;
     ALTER TABLE ${t.chunks} ADD COLUMN IF NOT EXISTS keys int8[];
     UPDATE ${t.chunks} c SET keys = ARRAY(
       SELECT ${termKeySql('u.h', 'u.k', 'c.index_id')} FROM unnest(c.hashes, c.checks) WITH ORDINALITY AS u(h, k, o)
       ORDER BY u.o)
     WHERE c.hashes IS NOT NULL AND c.checks IS NOT NULL`,
  )
  for (;;) {
    const { rows } = await client.query<{ id: string; index_id: string; terms: string[]; counts: number[] }>(
      `SELECT id, index_id, terms, counts FROM ${t.chunks} WHERE keys IS NULL LIMIT ${KEY_BATCH}`,
    )
    if (rows.length === 0) break
    const rekeyed = rows.map((r) => keyedRow(Number(r.index_id), r.terms, r.counts))
    await client.query(
      `UPDATE ${t.chunks} c SET keys = u.keys::int8[], counts = u.counts::int4[]
       FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(id, keys, counts) WHERE c.id = u.id`,
      [rows.map((r) => r.id), rekeyed.map((r) => r.keys), rekeyed.map((r) => r.counts)],
    )
  }
  await client.query(
    `ALTER TABLE ${t.chunks} ALTER COLUMN keys SET NOT NULL, DROP COLUMN terms, DROP COLUMN hashes, DROP COLUMN checks`,
  )
}

export type ServerInfo = {
  /** server_version_num, e.g. 150004. */
  version: number
  /** pgvector's version when the extension is installed, else null. */
  pgvector: string | null
}

async function serverInfo(db: Queryable): Promise<ServerInfo> {
  const { rows } = await db.query<{ version: string; pgvector: string | null }>(
    `SELECT current_setting('server_version_num') AS version,
       (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS pgvector`,
  )
  return { version: Number(rows[0]?.version ?? 0), pgvector: rows[0]?.pgvector ?? null }
}

const atLeast = (version: string, min: readonly number[]) => {
  const parts = version.split('.').map(Number)
  for (let i = 0; i < min.length; i++) {
    const a = parts[i] ?? 0
    const b = min[i] ?? 0
    if (a !== b) return a > b
  }
  return true
}

/**
 * Creates or upgrades the schema (under an advisory lock, once for all replicas) and checks
 * the server: PostgreSQL ≥ 15 (else a start-up error), and, when `vectors`, pgvector ≥ 0.7
 * (created when missing and allowed; what is wrong is returned as `vectorProblem`, a
 * start-up error once an embedding provider asks for vectors).
 */
export async function migrate(pool: Pool, t: Tables, schema: string, opts: { vectors: boolean; log: Logger }) {
  const info = await serverInfo(pool)
  if (info.version < MIN_SERVER_VERSION) {
    throw new ConfigError(`MNEMO_DATABASE_URL: PostgreSQL 15 or later is required (the server is ${info.version})`)
  }
  return inTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(${lockKey(1)})`, [`${schema}:migrate`])
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${t.schema}`)
    await client.query(ddl(t))
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${t.version}`)
    const found = rows[0]?.version
    if (found !== undefined && found > PG_SCHEMA_VERSION) {
      throw new ConfigError(
        `MNEMO_DATABASE_URL: the schema "${schema}" was written by a newer mnemo (schema ${found}, this one knows ${PG_SCHEMA_VERSION})`,
      )
    }
    if (found === undefined) await client.query(`INSERT INTO ${t.version} (version) VALUES ($1)`, [PG_SCHEMA_VERSION])
    else if (found < PG_SCHEMA_VERSION) {
      // Columns only: the rows get their values from the rebuild the new identity starts.
      await client.query(
        `ALTER TABLE ${t.chunks} ADD COLUMN IF NOT EXISTS dated_ms bigint,
           ADD COLUMN IF NOT EXISTS entry_status text, ADD COLUMN IF NOT EXISTS entry_observed text,
           ADD COLUMN IF NOT EXISTS entry_key text, ADD COLUMN IF NOT EXISTS entry_origin text,
           ADD COLUMN IF NOT EXISTS entry_hash text, ADD COLUMN IF NOT EXISTS hashes int4[],
           ADD COLUMN IF NOT EXISTS checks int4[]`,
      )
      await client.query(
        `ALTER TABLE ${t.indexes} ADD COLUMN IF NOT EXISTS lists text NOT NULL DEFAULT 'kept'
           CHECK (lists IN ('kept', 'paused')), ADD COLUMN IF NOT EXISTS list_build bigint NOT NULL DEFAULT 0`,
      )
      // An index without lists is searched as before: every term reads its chunks (GIN).
      await client.query(
        `ALTER TABLE ${t.terms} ADD COLUMN IF NOT EXISTS floor double precision,
           ADD COLUMN IF NOT EXISTS listed int NOT NULL DEFAULT 0, ADD COLUMN IF NOT EXISTS reference double precision`,
      )
      if (found < 6) await countsFromTf(client, t)
      if (found < 11) await keysFromTerms(client, t)
      await client.query(chunkColumnSettings(t))
      await client.query(`UPDATE ${t.version} SET version = $1`, [PG_SCHEMA_VERSION])
    }
    // After the columns exist (an upgraded table gets them just above).
    await client.query(
      `CREATE INDEX IF NOT EXISTS chunks_by_key ON ${t.chunks} USING gin (keys);
       CREATE INDEX IF NOT EXISTS chunks_entry_hash ON ${t.chunks} (index_id, entry_hash) WHERE entry_hash IS NOT NULL;
       CREATE INDEX IF NOT EXISTS chunks_entry_key ON ${t.chunks} (index_id, entry_key) WHERE entry_key IS NOT NULL`,
    )
    let pgvector = info.pgvector
    let vectorProblem: string | null = null
    if (opts.vectors && pgvector === null) {
      try {
        await client.query('SAVEPOINT vector_extension')
        await client.query('CREATE EXTENSION IF NOT EXISTS vector')
        pgvector = (await serverInfo(client)).pgvector
      } catch (err) {
        await client.query('ROLLBACK TO SAVEPOINT vector_extension')
        vectorProblem =
          'embeddings are on, but the pgvector extension is not installed on the server and could not be created ' +
          `(${err instanceof Error ? err.message : String(err)}): install pgvector ≥ ${MIN_PGVECTOR.join('.')}, or run ` +
          'CREATE EXTENSION vector as a superuser; keyword search alone works on plain PostgreSQL (MNEMO_EMBED_PROVIDER=none)'
      }
    }
    if (pgvector !== null && !atLeast(pgvector, MIN_PGVECTOR)) {
      vectorProblem = `pgvector ${MIN_PGVECTOR.join('.')} or later is required (the server has ${pgvector})`
    }
    opts.log.info({ server: info.version, pgvector, schema }, 'PostgreSQL schema ready')
    return { ...info, pgvector, vectorProblem, iterativeScan: pgvector !== null && atLeast(pgvector, [0, 8]) }
  })
}

/** Creates the vector table of `dims` dimensions with its HNSW index when missing (once for all replicas). */
export async function ensureVectorTable(pool: Pool, t: Tables, schema: string, dims: number): Promise<void> {
  const table = t.vectors(dims)
  const d = Math.trunc(dims)
  await inTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(${lockKey(1)})`, [`${schema}:vectors`])
    await client.query(`
CREATE TABLE IF NOT EXISTS ${table} (
  chunk_id bigint PRIMARY KEY REFERENCES ${t.chunks} (id) ON DELETE CASCADE,
  index_id bigint NOT NULL,
  path text NOT NULL,
  source text NOT NULL,
  embedding vector(${d}) NOT NULL
);
CREATE INDEX IF NOT EXISTS vectors_${d}_hnsw ON ${table} USING hnsw (embedding vector_cosine_ops);
CREATE INDEX IF NOT EXISTS vectors_${d}_by_index ON ${table} (index_id);`)
  })
}
