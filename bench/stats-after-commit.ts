/**
 * A search thread's keyword statistics right after a commit that wrote no chunk row, as the
 * index's upkeep commits every few ms for minutes after a big sync (FTS5 merges, impact
 * lists): the common words' document frequencies of makeCommonQueries, read through a
 * read-only store as a search thread reads them, in a build's `dist` (issue 35).
 *
 *   npm run build && npx tsx bench/stats-after-commit.ts [--chunks 100000] dist /path/to/other/dist
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { makeCommonQueries, writeCorpus } from './corpus.js'
import { median } from './stats.js'

type Store = {
  applyChanges(changes: { replace: unknown[] }, steps: { between: () => Promise<void> }): Promise<void>
  setMeta(key: string, value: string): void
  keywordStats(terms: readonly string[]): unknown
  close(): void
}
type Modules = {
  createIndexStore: (opts: { dbPath: string; readonly?: boolean }) => Store
  prepareFile: (input: object, chunking: object, slicer: object) => Promise<unknown>
  queryTerms: (query: string) => string[]
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { chunks: { type: 'string', default: '100000' } },
})
const chunks = Number(values.chunks)
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-stats-'))
const workspace = path.join(tmp, 'workspace')
writeCorpus(workspace, Math.ceil(chunks / 50), 50)
const files = fs.readdirSync(path.join(workspace, 'memory')).sort()

async function load(dist: string): Promise<Modules> {
  const at = (p: string) => import(path.resolve(dist, p)) as Promise<Record<string, unknown>>
  return {
    ...(await at('store/sqlite/index-store.js')),
    ...(await at('indexing/prepare-file.js')),
    ...(await at('text/analyzer.js')),
  } as Modules
}

try {
  for (const dist of positionals) {
    const m = await load(dist)
    const dbPath = path.join(tmp, `${path.basename(path.dirname(path.resolve(dist)))}.sqlite`)
    const writer = m.createIndexStore({ dbPath })
    let readSeq = 0
    for (let i = 0; i < files.length; i += 50) {
      const replace = []
      for (const name of files.slice(i, i + 50)) {
        const text = fs.readFileSync(path.join(workspace, 'memory', name), 'utf8')
        const input = { rel: `memory/${name}`, text, sha256: name, sizeBytes: text.length, mtimeMs: 0, indexedAtMs: 0 }
        const chunking = { maxTokens: 400, overlapTokens: 80 }
        replace.push(
          await m.prepareFile({ ...input, readSeq: ++readSeq }, chunking, { maybeYield: async () => undefined }),
        )
      }
      await writer.applyChanges({ replace }, { between: async () => undefined })
    }
    const reader = m.createIndexStore({ dbPath, readonly: true })
    const queries = makeCommonQueries(40, 5).map((q) => m.queryTerms(q))
    // Each query's terms read once: what is timed is what a commit makes the thread read again.
    for (const terms of queries) reader.keywordStats(terms)
    const afterCommit: number[] = []
    const again: number[] = []
    for (const terms of queries) {
      writer.setMeta('bench_probe', String(readSeq++))
      let t = performance.now()
      reader.keywordStats(terms)
      afterCommit.push(performance.now() - t)
      t = performance.now()
      reader.keywordStats(terms)
      again.push(performance.now() - t)
    }
    console.log(
      `${dist}: ${chunks} chunks, keyword statistics of common words p50 ${median(afterCommit).toFixed(3)} ms ` +
        `(max ${Math.max(...afterCommit).toFixed(2)}) right after a commit that wrote no chunk, ` +
        `${median(again).toFixed(3)} ms asked again`,
    )
    reader.close()
    writer.close()
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}
