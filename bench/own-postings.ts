/**
 * Own postings for rare terms (issue 35, long queries): what ranking the SciFact claims'
 * candidates from postings of our own would cost, against FTS5's bm25() that ranks them now.
 * A prototype measurement for a design decision (docs/decisions.md, "Long queries"); the
 * service does not use it.
 *
 * The service indexes the SciFact workspace; then, from its index file, every term held by at
 * most POSTING_BUDGET chunks (a plan hands FTS5 a term in more only as its sole selective
 * term) gets one row: its chunk count and a blob of varints, per chunk holding it (by id): the
 * id's distance from the previous one, the term's count in the body, in the headings and
 * path, and the chunk's length in terms. Each claim is planned as the service plans it (analyseQuery,
 * planKeywordQuery), and its selective terms are ranked both ways: by FTS5 (the query of
 * store/sqlite/search-repo.ts without its outer join), and in JavaScript with FTS5's bm25()
 * summed term by term in FTS5's order (store/sqlite/fts5-bm25.ts, the IDF's logarithm from
 * SQLite's ln()). It checks that both give the same chunks with the same ranks to the last
 * bit, then times each (medians of the rounds, µs a claim), and prints the postings' size.
 *
 *   npx tsx bench/own-postings.ts [--dir ../shared/eval] [--rounds 7] [--limit 24]
 *
 * Needs the service built (npm run build). The postings are read from FTS5's 'instance'
 * vocabulary, one way a background build could read them; the time that takes is printed.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { planKeywordQuery } from '../src/search/keyword-plan.js'
import { HEADING_WEIGHT, POSTING_BUDGET } from '../src/search/keyword-search.js'
import { openDatabase, type Db } from '../src/store/sqlite/database.js'
import { fts5AvgTokens, fts5Rank, parseAverages, AVERAGES_SQL } from '../src/store/sqlite/fts5-bm25.js'
import { ftsMatch } from '../src/store/sqlite/fts-match.js'
import { analyseQuery } from '../src/text/analyzer.js'
import { createClient } from './http-client.js'
import { scifactClaims } from './scifact-claims.js'
import { startServer } from './server-process.js'
import { median } from './stats.js'

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: path.resolve(import.meta.dirname, '../../shared/eval') },
    rounds: { type: 'string', default: '7' },
    limit: { type: 'string', default: '24' },
  },
})
const rounds = Number(values.rounds)
/** Candidates a claim's search asks FTS5 for (search-service.ts: several times the results). */
const limit = Number(values.limit)
const set = path.join(values.dir, 'scifact')
const claims = scifactClaims(set)

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-own-postings-'))
try {
  const workspace = path.join(tmp, 'workspace')
  const data = path.join(tmp, 'data')
  fs.cpSync(path.join(set, 'memory'), path.join(workspace, 'memory'), { recursive: true })
  const server = await startServer({ MNEMO_WORKSPACE: workspace, MNEMO_DATA_DIR: data })
  try {
    const indexed = await createClient(server.baseUrl).request('POST', '/index?wait=true', {})
    if (indexed.status !== 200) throw new Error(`index failed: ${indexed.body}`)
  } finally {
    await server.stop()
  }
  const indexFile = path.join(data, 'index.sqlite')
  const db = openDatabase(indexFile, { readonly: true })
  const postingsFile = path.join(tmp, 'postings.sqlite')
  const own = openDatabase(postingsFile, { scratch: true })
  const buildStarted = performance.now()
  const built = buildPostings(db, own)
  const buildMs = performance.now() - buildStarted
  const ranker = createOwnRanker(db, own)
  const rows = parseAverages(db.prepare<[], { block: Uint8Array }>(AVERAGES_SQL).get()?.block ?? new Uint8Array()).rows
  const docFreq = db.prepare<[string], number>('SELECT doc FROM chunks_vocab WHERE term = ?').pluck()
  const planned = claims.flatMap((claim) => {
    const { terms } = analyseQuery(claim)
    const stats = terms.map((term) => ({ term, docFreq: docFreq.get(term) ?? 0 }))
    const plan = planKeywordQuery(stats, rows, POSTING_BUDGET)
    return plan.kind === 'ranked' ? [{ selective: plan.selective, match: ftsMatch(plan.selective) as string }] : []
  })
  const fts = db.prepare<[string, number], { id: number; rank: number }>(
    `SELECT rowid AS id, bm25(chunks_fts, 1.0, ${HEADING_WEIGHT}) AS rank FROM chunks_fts
     WHERE chunks_fts MATCH ? ORDER BY rank LIMIT +?`,
  )
  let identical = 0
  for (const p of planned) {
    const a = fts.all(p.match, limit)
    const b = ranker.rank(p.selective, limit)
    if (a.length === b.length && a.every((r, i) => r.id === b[i]?.id && r.rank === b[i]?.rank)) identical++
  }
  const timed = (run: (p: (typeof planned)[number]) => unknown): number[] =>
    Array.from({ length: rounds }, () => {
      const started = process.hrtime.bigint()
      for (const p of planned) run(p)
      return Number(process.hrtime.bigint() - started) / 1e3 / planned.length
    })
  const ftsUs: number[] = []
  const ownUs: number[] = []
  for (let r = 0; r < 3; r++) {
    ftsUs.push(...timed((p) => fts.all(p.match, limit)))
    ownUs.push(...timed((p) => ranker.rank(p.selective, limit)))
  }
  const chunks = db.prepare<[], number>('SELECT count(*) FROM chunks').pluck().get() ?? 0
  own.close()
  db.close()
  const indexBytes = fs.statSync(indexFile).size
  const postingsBytes = fs.statSync(postingsFile).size
  process.stdout.write(
    `${planned.length} claims planned (of ${claims.length}), ${chunks} chunks, top ${limit}\n` +
      `same chunks and ranks to the last bit: ${identical} of ${planned.length}\n` +
      `FTS5 bm25(): ${median(ftsUs).toFixed(0)} µs a claim; own postings: ${median(ownUs).toFixed(0)} µs a claim ` +
      `(medians of ${ftsUs.length} rounds)\n` +
      `postings: ${built.terms} terms, ${built.postings} postings, ${built.blobBytes} bytes of blobs ` +
      `(${(built.blobBytes / built.postings).toFixed(1)} a posting); file ${postingsBytes} bytes, ` +
      `${Math.round(postingsBytes / chunks)} a chunk, ${((100 * postingsBytes) / indexBytes).toFixed(0)} % of the index file ` +
      `(${indexBytes} bytes); read from FTS5's instance vocabulary in ${Math.round(buildMs)} ms ` +
      `(${((1000 * buildMs) / built.postings).toFixed(1)} µs a posting)\n`,
  )
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}

/** A LEB128 varint: 7 bits a byte, low bits first. */
function putVarint(out: number[], value: number): void {
  let v = value
  while (v >= 128) {
    out.push((v & 127) | 128)
    v >>>= 7
  }
  out.push(v)
}

/** Postings of every term in at most POSTING_BUDGET chunks, from FTS5's instance vocabulary. */
function buildPostings(db: Db, own: Db) {
  own.exec('CREATE TABLE postings (term TEXT PRIMARY KEY, chunks INTEGER NOT NULL, blob BLOB NOT NULL) WITHOUT ROWID')
  db.exec(`CREATE VIRTUAL TABLE temp.instances USING fts5vocab(main, chunks_fts, 'instance')`)
  const terms = db.prepare<[number], string>('SELECT term FROM chunks_vocab WHERE doc <= ?').pluck().all(POSTING_BUDGET)
  const tokens = new Map(db.prepare<[], [number, number]>('SELECT id, token_count FROM chunks').raw().all())
  const instances = db.prepare<[string], [number, string]>('SELECT doc, col FROM temp.instances WHERE term = ?').raw()
  const insert = own.prepare<[string, number, Buffer]>('INSERT INTO postings VALUES (?, ?, ?)')
  let postings = 0
  let blobBytes = 0
  own.transaction(() => {
    for (const term of terms) {
      const counts = new Map<number, { body: number; heading: number }>()
      for (const [doc, col] of instances.all(term)) {
        const c = counts.get(doc) ?? { body: 0, heading: 0 }
        if (col === 'body_terms') c.body++
        else c.heading++
        counts.set(doc, c)
      }
      const out: number[] = []
      let previous = 0
      for (const doc of [...counts.keys()].sort((x, y) => x - y)) {
        const c = counts.get(doc) as { body: number; heading: number }
        putVarint(out, doc - previous)
        putVarint(out, c.body)
        putVarint(out, c.heading)
        putVarint(out, tokens.get(doc) ?? 0)
        previous = doc
      }
      insert.run(term, counts.size, Buffer.from(out))
      postings += counts.size
      blobBytes += out.length
    }
  })()
  return { terms: terms.length, postings, blobBytes }
}

/** Ranks selective terms from the postings as FTS5's bm25() ranks them. */
function createOwnRanker(db: Db, own: Db) {
  const read = own.prepare<[string], [number, Buffer]>('SELECT chunks, blob FROM postings WHERE term = ?').raw()
  const averages = db.prepare<[], { block: Uint8Array }>(AVERAGES_SQL)
  const ln = db.prepare<[number], number>('SELECT ln(?)').pluck()
  const logs = new Map<number, number>()
  const maxId = db.prepare<[], number>('SELECT max(id) FROM chunks').pluck().get() ?? 0
  // Each chunk's rank so far (a sum of negative terms, so 0 until the chunk is met), and the
  // chunks met, reused by every claim.
  const rank = new Float64Array(maxId + 1)
  const met = new Int32Array(maxId + 1)

  return {
    rank(selective: readonly string[], limit: number): { id: number; rank: number }[] {
      const avg = parseAverages(averages.get()?.block ?? new Uint8Array())
      const avgTokens = fts5AvgTokens(avg)
      let n = 0
      for (const term of selective) {
        const row = read.get(term)
        if (!row) continue
        const [chunks, blob] = row
        // FTS5's IDF (fts5_aux.c), its logarithm SQLite's, clamped above 0.
        const x = (avg.rows - chunks + 0.5) / (chunks + 0.5)
        let idf = logs.get(x)
        if (idf === undefined) {
          idf = ln.get(x) ?? 0
          logs.set(x, idf)
        }
        if (idf <= 0) idf = 1e-6
        let at = 0
        let id = 0
        const next = (): number => {
          let value = 0
          let shift = 0
          let byte: number
          do {
            byte = blob[at++] as number
            value |= (byte & 127) << shift
            shift += 7
          } while (byte & 128)
          return value
        }
        while (at < blob.length) {
          id += next()
          const body = next()
          const heading = next()
          const tokens = next()
          if (rank[id] === 0) met[n++] = id
          rank[id] = (rank[id] as number) + fts5Rank(idf, body, heading, HEADING_WEIGHT, tokens, avgTokens)
        }
      }
      // The best `limit` by rank, equal ranks by id (as FTS5 hands rows over), kept sorted.
      const best: { id: number; rank: number }[] = []
      for (let i = 0; i < n; i++) {
        const id = met[i] as number
        const r = rank[id] as number
        rank[id] = 0
        const last = best[limit - 1]
        if (last && (r > last.rank || (r === last.rank && id > last.id))) continue
        let at = best.length
        while (
          at > 0 &&
          ((best[at - 1] as { rank: number }).rank > r ||
            (best[at - 1]?.rank === r && (best[at - 1] as { id: number }).id > id))
        )
          at--
        best.splice(at, 0, { id, rank: r })
        if (best.length > limit) best.pop()
      }
      return best
    },
  }
}
