/**
 * Vector search by the quantised pre-selection (issue 35): with the hash provider, whose query
 * vectors are sparse, an index of at least MNEMO_SEARCH_QUANTIZED_FROM chunks pre-selects its
 * candidates by int8 codes in memory and scores them from the stored floats. Its answers are
 * compared with the exact vec0 scan's (MNEMO_SEARCH_QUANTIZED_FROM=0) over one index.
 */
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { createHashEmbeddings } from '../../src/providers/hash-embeddings.js'
import { loadSqliteVec } from '../../src/store/sqlite/sqlite-vec.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { createTempWorkspace, type TempWorkspace } from '../helpers/temp-workspace.js'
import { onPostgres } from '../helpers/test-database.js'

const TOPICS = [
  'deploy the payment service to staging on Tuesday',
  'the database migration failed with a lock timeout',
  'rerank latency went up after the model upgrade',
  'customer feedback about the search results page',
  'vector index rebuild finished overnight',
  'cache hit rate dropped when the workspace grew',
  'team lunch moved to Friday at noon',
  'fix the flaky test in the sync worker',
]
const QUERIES = ['deploy payment', 'database lock', 'rerank latency model', 'search feedback', 'flaky sync test']

/** Day files of short notes mixing the topics, so every query has many near neighbours. */
function writeDays(ws: TempWorkspace, days: number, from = 1): void {
  for (let d = from; d < from + days; d++) {
    const notes = Array.from({ length: 6 }, (_, i) => {
      const a = TOPICS[(d * 3 + i) % TOPICS.length] as string
      const b = TOPICS[(d + i * 5) % TOPICS.length] as string
      return `## Note ${i}\n\n${a}; later ${b} (day ${d}, item ${i}).`
    })
    ws.write(`memory/2026-01-${String(d).padStart(2, '0')}.md`, `# Day ${d}\n\n${notes.join('\n\n')}\n`)
  }
}

const app = (ws: TempWorkspace, quantizedFrom: number) =>
  buildTestApp({
    ws,
    env: { MNEMO_EMBED_PROVIDER: 'hash', MNEMO_SEARCH_QUANTIZED_FROM: String(quantizedFrom) },
  })

/** Each query's vector results: chunk, lines and score, nearest first. */
async function answers(t: TestApp): Promise<unknown[]> {
  const out: unknown[] = []
  for (const query of QUERIES) {
    const res = await t.search({ query, mode: 'vector', maxResults: 12, minScore: 0 })
    expect(res.statusCode).toBe(200)
    out.push(res.body.results.map((r) => [r.path, r.startLine, r.endLine, r.vectorScore]))
  }
  return out
}

/** The answers of the exact scan over the same workspace and index (TestApp.close would delete both). */
const exactly = async (ws: TempWorkspace): Promise<unknown[]> => {
  const t = await app(ws, 0)
  try {
    return await answers(t)
  } finally {
    await t.app.close()
  }
}

describe.skipIf(onPostgres())('quantised vector search', () => {
  it('returns the exact scan’s results, through writes and deletes', async () => {
    const ws = createTempWorkspace()
    writeDays(ws, 20)
    const quantized = await app(ws, 1)
    try {
      const first = await answers(quantized)
      expect((first[0] as unknown[]).length).toBe(12)
      // New chunks and deleted ones reach the copy through the change log.
      writeDays(ws, 5, 21)
      ws.remove('memory/2026-01-03.md')
      await quantized.sync()
      const after = await answers(quantized)
      await quantized.app.close()
      expect(after).toEqual(await exactly(ws))
    } finally {
      await quantized.app.close()
      ws.cleanup()
    }
  })

  it('answers from its copy and the float table, not from the vec0 scan', async () => {
    const ws = createTempWorkspace()
    writeDays(ws, 10)
    const t = await app(ws, 1)
    try {
      const before = await t.search({ query: 'deploy payment', mode: 'vector', minScore: 0 })
      expect(before.body.results.length).toBeGreaterThan(0)
      // Emptying the vec0 table leaves the exact scan nothing to find.
      const db = openDatabase(path.join(ws.dataDir, 'index.sqlite'))
      loadSqliteVec(db)
      db.exec('DELETE FROM chunks_vec')
      db.close()
      const after = await t.search({ query: 'deploy payment', mode: 'vector', minScore: 0 })
      expect(after.body.results).toEqual(before.body.results)
      const filtered = await t.search({ query: 'deploy payment', mode: 'vector', minScore: 0, pathPrefix: 'memory/' })
      expect(filtered.body.results).toEqual([])
    } finally {
      await t.close()
      ws.cleanup()
    }
  })

  it('keeps no float copy for a provider of dense query vectors', async () => {
    /** The index's tables beside vec0 for the quantised copy. */
    const copyTables = (ws: TempWorkspace): string[] => {
      const db = openDatabase(path.join(ws.dataDir, 'index.sqlite'))
      try {
        return db
          .prepare<[], { name: string }>(
            "SELECT name FROM sqlite_master WHERE name IN ('chunk_vectors', 'vector_changes') ORDER BY name",
          )
          .all()
          .map((r) => r.name)
      } finally {
        db.close()
      }
    }
    const { sparseQueries: _sparse, ...dense } = createHashEmbeddings({ dims: 64 })
    for (const [embedder, tables] of [
      [{ ...dense, id: 'dense' }, []],
      [createHashEmbeddings({ dims: 64 }), ['chunk_vectors', 'vector_changes']],
    ] as const) {
      const ws = createTempWorkspace()
      writeDays(ws, 3)
      const t = await buildTestApp({ ws, env: { MNEMO_SEARCH_QUANTIZED_FROM: '1' }, overrides: { embedder } })
      try {
        const res = await t.search({ query: 'deploy payment', mode: 'vector', minScore: 0 })
        expect(res.body.results.length).toBeGreaterThan(0)
        expect(copyTables(ws)).toEqual(tables)
      } finally {
        await t.close()
        ws.cleanup()
      }
    }
  })
})
