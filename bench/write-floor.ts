/**
 * What a first sync of the synthetic workspace (bench/corpus.ts, 200 files × 50 notes,
 * 10,001 chunks) costs on one thread, apart from the service (issue 19): preparing every
 * file (chunking, hashing, term analysis: what the search workers now do), then writing the
 * prepared chunks into a new index, with their FTS5 rows, in transactions of at most N
 * analysed terms. The service writes on its main thread in transactions of 4,000 terms
 * (store/sqlite/staged-changes.ts); bigger ones cost less in all but hold the event loop
 * longer. Checkpoints are left out (a search worker runs them beside the writer). `--automerge`:
 * FTS5's automerge for each write (4, FTS5's default, which the service keeps: BENCHMARKS.md,
 * issue 35, for why 8 was not kept).
 *
 *   npx tsx bench/write-floor.ts [--runs 3] [--terms 4000,16000,64000,0] [--automerge 4,8]   (0: one transaction)
 *
 * Prints the median over runs of each measure, in ms.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { NEVER_YIELD } from '../src/indexing/chunker.js'
import { prepareFile, type PreparedFile } from '../src/indexing/prepare-file.js'
import { createIndexStore } from '../src/store/sqlite/index-store.js'
import { writeCorpus } from './corpus.js'
import { median } from './stats.js'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    terms: { type: 'string', default: '4000,16000,64000,0' },
    automerge: { type: 'string', default: '4' },
  },
})
const runs = Number(values.runs)
const budgets = values.terms.split(',').map(Number)
const automerges = values.automerge.split(',').map(Number)
const CHUNKING = { maxTokens: 400, overlapTokens: 80 }

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-write-floor-'))
const workspace = path.join(tmp, 'workspace')
writeCorpus(workspace, 200, 50)
const files = fs
  .readdirSync(workspace, { recursive: true, encoding: 'utf8' })
  .filter((rel) => rel.endsWith('.md'))
  .sort()

async function prepareAll(): Promise<PreparedFile[]> {
  const out: PreparedFile[] = []
  for (const rel of files) {
    const text = fs.readFileSync(path.join(workspace, rel), 'utf8')
    const input = { rel, text, sha256: rel, sizeBytes: text.length, mtimeMs: 0, indexedAtMs: 0, readSeq: 1 }
    out.push(await prepareFile(input, CHUNKING, NEVER_YIELD))
  }
  return out
}

/** Writes every chunk in transactions of at most `budget` terms (0: all in one); ms. */
function writeAll(prepared: readonly PreparedFile[], budget: number, automerge: number, dbPath: string): number {
  // A checkpoint function keeps SQLite's own checkpoints out of the commits, as in the service.
  const store = createIndexStore({ dbPath, checkpoint: async () => undefined })
  store.transaction((repo) => repo.setFtsOptions({ automerge }))
  const started = performance.now()
  let batch: { file: PreparedFile; chunks: PreparedFile['chunks'] }[] = []
  let terms = 0
  const flush = () => {
    store.transaction((repo) => {
      for (const b of batch) repo.rows.insert(b.file.record, b.chunks, 0)
    })
    batch = []
    terms = 0
  }
  for (const file of prepared) {
    for (const chunk of file.chunks) {
      if (budget > 0 && terms > 0 && terms + chunk.tokenCount > budget) flush()
      const last = batch.at(-1)
      if (last?.file === file) last.chunks.push(chunk)
      else batch.push({ file, chunks: [chunk] })
      terms += chunk.tokenCount
    }
  }
  if (batch.length > 0) flush()
  const ms = performance.now() - started
  store.close()
  return ms
}

const samples = new Map<string, number[]>()
const add = (key: string, ms: number) => samples.set(key, [...(samples.get(key) ?? []), ms])
let chunks = 0
let termCount = 0
for (let run = 0; run < runs; run++) {
  const started = performance.now()
  const prepared = await prepareAll()
  add('prepare every file (chunk, hash, analyse)', performance.now() - started)
  chunks = prepared.reduce((n, f) => n + f.chunks.length, 0)
  termCount = prepared.reduce((n, f) => n + f.chunks.reduce((m, c) => m + c.tokenCount, 0), 0)
  for (const budget of budgets) {
    for (const automerge of automerges) {
      const dbPath = path.join(tmp, `index-${run}-${budget}-${automerge}.sqlite`)
      add(
        `write, ${budget > 0 ? `transactions of ≤ ${budget} terms` : 'one transaction'}, automerge ${automerge}`,
        writeAll(prepared, budget, automerge, dbPath),
      )
    }
  }
}
fs.rmSync(tmp, { recursive: true, force: true })

console.log(`\n### One thread: ${chunks} chunks, ${termCount} analysed terms, median of ${runs} runs\n`)
console.log('| step | ms |\n|---|---|')
for (const [key, ms] of samples) console.log(`| ${key} | ${Math.round(median(ms))} |`)
