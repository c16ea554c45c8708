import pg from 'pg'
import { describe, expect, it } from 'vitest'
import type { ChunkInput, FileRecord } from '../../src/domain/chunks.js'
import { PG_SCHEMA_VERSION } from '../../src/store/postgres/migrations.js'
import { databaseUrl, testPostgresEngine } from './pg-engine.js'
import { termChunk } from '../helpers/term-chunk.js'
import { termCheck, termHash } from '../../src/store/postgres/term-hash.js'
import { columnCounts } from '../../src/text/term-count.js'

/** Chunk `i`: `alpha` i times in its body, `beta` in its heading when i is even. */
function chunk(i: number): ChunkInput {
  const body = [...Array<string>(i).fill('alpha'), 'gamma', `only${i}`]
  const heading = i % 2 === 0 ? ['beta', 'beta'] : []
  return termChunk(i, body, heading)
}

const record: FileRecord = {
  path: 'memory/a.md',
  source: 'memory',
  sha256: 'a',
  sizeBytes: 1,
  mtimeMs: 1,
  lineCount: 6,
  chunkCount: 6,
  indexedAtMs: 1,
  readSeq: 1,
}

const ENTRY_COLUMNS = ['entry_status', 'entry_observed', 'entry_key', 'entry_origin', 'entry_hash']
const LIST_COLUMNS = ['floor', 'listed']

type Row = { id: string; index_id: string; body_terms: string; heading_terms: string; keys: string[]; counts: number[] }

const rowsOf = async (client: pg.Client, schema: string) =>
  (
    await client.query<Row>(
      `SELECT id, index_id, body_terms, heading_terms, keys, counts FROM ${schema}.chunks ORDER BY id`,
    )
  ).rows

/** How schema 10 kept a row's terms: by hash with checks, by hash without (7), or scanned (6, or one hash twice). */
type Layout = 'hashed' | 'unchecked' | 'scanned'

/**
 * Rewrites the chunk rows as schema 10 kept them: text keys `<index id>:<term>` (`terms`,
 * under a GIN index) with hashes and checks in hash order, or as `layout` says, and their
 * counts in that order; a row with two terms of one hash as schema 10 wrote it, scanned, in
 * reverse text order.
 */
async function asSchema10(client: pg.Client, schema: string, layout: (row: number) => Layout) {
  const rows = await rowsOf(client, schema)
  await client.query(
    `ALTER TABLE ${schema}.chunks ADD COLUMN terms text[] COLLATE "C", ADD COLUMN hashes int4[], ADD COLUMN checks int4[]`,
  )
  for (const [i, row] of rows.entries()) {
    const counts = columnCounts(row.body_terms, row.heading_terms)
    const terms = [...counts.keys()]
    const kind = new Set(terms.map(termHash)).size === terms.length ? layout(i) : 'scanned'
    const ordered = kind === 'scanned' ? terms.sort().reverse() : terms.sort((a, b) => termHash(a) - termHash(b))
    await client.query(`UPDATE ${schema}.chunks SET terms = $2, counts = $3, hashes = $4, checks = $5 WHERE id = $1`, [
      row.id,
      ordered.map((term) => `${row.index_id}:${term}`),
      ordered.flatMap((term) => counts.get(term) ?? []),
      kind === 'scanned' ? null : ordered.map(termHash),
      kind === 'hashed' ? ordered.map(termCheck) : null,
    ])
  }
  await client.query(
    `ALTER TABLE ${schema}.chunks DROP COLUMN keys, ALTER COLUMN terms SET NOT NULL;
     CREATE INDEX chunks_by_term ON ${schema}.chunks USING gin (terms);
     UPDATE ${schema}.schema_version SET version = 10`,
  )
}

/** A term's key in the index `indexId` as PostgreSQL prints an int8: termHash high, termCheck xor the id low. */
const keyOf = (indexId: number, term: string) =>
  (BigInt(termHash(term)) * 2n ** 32n + BigInt((termCheck(term) ^ indexId) >>> 0)).toString()

describe('PostgreSQL schema upgrade', () => {
  it.each([
    // [version, the chunk columns it did not have yet, the term columns, its term key columns]
    [1, ['dated_ms', ...ENTRY_COLUMNS], [...LIST_COLUMNS, 'reference'], ['terms']],
    [2, ENTRY_COLUMNS, [...LIST_COLUMNS, 'reference'], ['terms']],
    [3, ['entry_hash'], [...LIST_COLUMNS, 'reference'], ['terms']],
    [4, [], [...LIST_COLUMNS, 'reference'], ['terms']],
    [5, [], ['reference'], ['terms']],
    [6, [], ['reference'], ['terms']],
    [7, [], [], ['terms', 'hashes']],
    [8, [], [], ['terms', 'hashes', 'checks']],
    [9, [], [], ['terms', 'hashes', 'checks']],
    [10, [], [], ['terms', 'hashes', 'checks']],
  ])(
    'adds to a schema of version %i the columns it lacks, keys its terms in int8, and records the new version',
    async (version, missing, missingTerms, keyColumns) => {
      const first = await testPostgresEngine(null)
      const client = new pg.Client({ connectionString: databaseUrl() })
      await client.connect()
      try {
        await first.engine.close()
        // What that version was: without those columns, and its terms' keys as text.
        for (const column of missing) await client.query(`ALTER TABLE ${first.schema}.chunks DROP COLUMN ${column}`)
        for (const column of missingTerms) await client.query(`ALTER TABLE ${first.schema}.terms DROP COLUMN ${column}`)
        await client.query(
          `ALTER TABLE ${first.schema}.chunks DROP COLUMN keys,
             ${keyColumns.map((c) => `ADD COLUMN ${c} ${c === 'terms' ? `text[] COLLATE "C" NOT NULL` : 'int4[]'}`).join(', ')};
           CREATE INDEX chunks_by_term ON ${first.schema}.chunks USING gin (terms)`,
        )
        if (version < 10) {
          await client.query(`ALTER TABLE ${first.schema}.indexes DROP COLUMN lists, DROP COLUMN list_build`)
        }
        if (version < 5) await client.query(`DROP TABLE ${first.schema}.postings`)
        if (version < 6) {
          await client.query(`ALTER TABLE ${first.schema}.chunks DROP COLUMN counts, ADD COLUMN tf jsonb NOT NULL`)
        }
        await client.query(`UPDATE ${first.schema}.schema_version SET version = $1`, [version])
        const again = await testPostgresEngine(null, first.schema)
        try {
          const columnsOf = async (table: string, names: readonly string[]) =>
            (
              await client.query<{ column_name: string }>(
                `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2
                 AND column_name = ANY($3::text[]) ORDER BY column_name`,
                [first.schema, table, names],
              )
            ).rows.map((r) => r.column_name)
          expect(await columnsOf('chunks', [...missing, 'keys', 'counts', 'terms', 'hashes', 'checks', 'tf'])).toEqual(
            [...missing, 'counts', 'keys'].sort(),
          )
          expect(await columnsOf('terms', missingTerms)).toEqual([...missingTerms].sort())
          // From the catalogs, not pg_indexes: its definitions are read for other schemas' indexes
          // too, and one dropped meanwhile by a test beside this one failed the query.
          const gin = await client.query<{ name: string }>(
            `SELECT i.relname AS name FROM pg_index x
               JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
               JOIN pg_namespace n ON n.oid = t.relnamespace JOIN pg_am a ON a.oid = i.relam
             WHERE n.nspname = $1 AND t.relname = 'chunks' AND a.amname = 'gin'`,
            [first.schema],
          )
          expect(gin.rows).toEqual([{ name: 'chunks_by_key' }])
          const lists = await client.query<{ d: string }>(
            `SELECT column_default AS d FROM information_schema.columns WHERE table_schema = $1
             AND table_name = 'indexes' AND column_name = 'lists'`,
            [first.schema],
          )
          expect(lists.rows).toEqual([{ d: "'kept'::text" }])
          const postings = await client.query<{ t: string | null }>(`SELECT to_regclass($1)::text AS t`, [
            `${first.schema}.postings`,
          ])
          expect(postings.rows[0]?.t).not.toBeNull()
          const recorded = await client.query(`SELECT version FROM ${first.schema}.schema_version`)
          expect(recorded.rows).toEqual([{ version: PG_SCHEMA_VERSION }])
          expect(PG_SCHEMA_VERSION).toBe(11)
        } finally {
          await again.dispose()
        }
      } finally {
        await client.end()
      }
    },
  )

  it('keeps a row’s keys ascending, and converts the text keys of schema 10 (with and without hashes or checks) to the same keys, counts and rankings', async () => {
    const first = await testPostgresEngine(null)
    const client = new pg.Client({ connectionString: databaseUrl() })
    await client.connect()
    try {
      const store = await first.engine.openSpace({ kind: 'agent', id: 'main' })
      // `t7pfs` and `tovja` share a first hash: chunk 6 holds both, the others `t7pfs` alone.
      const chunks = Array.from({ length: 6 }, (_, i) => {
        const c = chunk(i + 1)
        const extra = i === 5 ? ['t7pfs', 'tovja'] : ['t7pfs']
        return termChunk(
          i + 1,
          [...c.bodyTerms.split(' '), '中文', 'zeta', ...extra],
          c.headingTerms.split(' ').filter(Boolean),
        )
      })
      await store.applyChanges({ replace: [{ record, chunks }] }, { between: async () => undefined })
      // `alpha0` and `tovja` are in none of chunks 1–5: the binary search gives them some
      // term's slot, `tovja` the one next to `t7pfs`, whose first hash is the same.
      const queries = [
        ['alpha'],
        ['beta', 'zeta'],
        ['alpha', 'beta', 'gamma'],
        ['only3', 'missing'],
        ['中文', 'aaa'],
        ['alpha0', 'gamma'],
        ['tovja', 'gamma'],
      ]
      const rank = async (s: typeof store) => {
        const ranked = []
        for (const terms of queries) ranked.push(await s.candidates({ terms, limit: 4, headingWeight: 2 }))
        return ranked
      }
      const before = await rank(store)
      const written = await rowsOf(client, first.schema)
      for (const row of written) {
        const keyed = [...columnCounts(row.body_terms, row.heading_terms)]
          .map(([term, counts]) => ({ key: BigInt(keyOf(Number(row.index_id), term)), counts }))
          .sort((a, b) => (a.key < b.key ? -1 : 1))
        expect(row.keys).toEqual(keyed.map((k) => k.key.toString()))
        expect(row.counts).toEqual(keyed.flatMap((k) => k.counts))
      }
      expect(before.map((hits) => hits.length)).toEqual([4, 4, 4, 1, 4, 4, 4])
      // Shortest first (chunk i: i + 5 terms, 2 more in the heading when even): `alpha0`
      // counts nothing where `alpha`, whose slot it may be given, counts more in longer chunks.
      expect(before[5]?.map((hit) => hit.startLine)).toEqual([1, 3, 2, 5])
      // `tovja` counts in chunk 6 alone, where it is, not where its first-hash twin `t7pfs` is.
      expect(before[6]?.[0]?.startLine).toBe(6)
      await first.engine.close()
      const layouts: Layout[] = ['hashed', 'unchecked', 'scanned']
      await asSchema10(client, first.schema, (i) => layouts[i % 3] as Layout)
      const again = await testPostgresEngine(null, first.schema)
      try {
        expect(await rowsOf(client, first.schema)).toEqual(written)
        expect(await rank(await again.engine.openSpace({ kind: 'agent', id: 'main' }))).toEqual(before)
      } finally {
        await again.dispose()
      }
    } finally {
      await client.end()
    }
  })

  it('converts the term counts of schema 5 (tf jsonb) in place: searches rank as before the upgrade', async () => {
    const first = await testPostgresEngine(null)
    const client = new pg.Client({ connectionString: databaseUrl() })
    await client.connect()
    try {
      const store = await first.engine.openSpace({ kind: 'agent', id: 'main' })
      const chunks = Array.from({ length: 6 }, (_, i) => chunk(i + 1))
      await store.applyChanges({ replace: [{ record, chunks }] }, { between: async () => undefined })
      const queries = [['alpha'], ['beta'], ['alpha', 'beta', 'gamma'], ['only3', 'missing']]
      const rank = async (s: typeof store) => {
        const ranked = []
        for (const terms of queries) ranked.push(await s.candidates({ terms, limit: 4, headingWeight: 2 }))
        return ranked
      }
      const before = await rank(store)
      const written = await rowsOf(client, first.schema)
      await first.engine.close()
      // Schema 5: each chunk's text keys, and its counts as a jsonb object {"term": [body, heading]}.
      await asSchema10(client, first.schema, () => 'scanned')
      await client.query(
        `ALTER TABLE ${first.schema}.chunks ADD COLUMN tf jsonb;
         UPDATE ${first.schema}.chunks SET tf = (SELECT jsonb_object_agg(substr(k, strpos(k, ':') + 1),
           jsonb_build_array(counts[2 * at - 1], counts[2 * at])) FROM unnest(terms) WITH ORDINALITY AS u(k, at));
         ALTER TABLE ${first.schema}.chunks DROP COLUMN counts, DROP COLUMN hashes, DROP COLUMN checks,
           ALTER COLUMN tf SET NOT NULL;
         UPDATE ${first.schema}.schema_version SET version = 5`,
      )
      const again = await testPostgresEngine(null, first.schema)
      try {
        expect(await rowsOf(client, first.schema)).toEqual(written)
        // Kept inline, and not sampled by ANALYZE (no query filters on them, or by values
        // the planner could look up: the terms' keys are computed in each statement).
        const counted = await client.query<{ name: string; storage: string; stats: number }>(
          `SELECT attname AS name, attstorage AS storage, COALESCE(attstattarget, -1) AS stats FROM pg_attribute
           WHERE attrelid = $1::regclass AND attname IN ('keys', 'counts') ORDER BY attname`,
          [`${first.schema}.chunks`],
        )
        expect(counted.rows).toEqual([
          { name: 'counts', storage: 'm', stats: 0 },
          { name: 'keys', storage: 'm', stats: 0 },
        ])
        const upgraded = await again.engine.openSpace({ kind: 'agent', id: 'main' })
        expect(await rank(upgraded)).toEqual(before)
        expect(before[0]?.length).toBe(4)
      } finally {
        await again.dispose()
      }
    } finally {
      await client.end()
    }
  })
})
