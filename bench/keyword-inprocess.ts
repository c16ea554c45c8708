/**
 * Keyword search in process, without HTTP or worker threads (issue 19): the reader
 * operations of several builds (each worktree's dist/), each over a read-only connection
 * to the index that build made of the same workspace (bench/keyword-ab.ts builds them),
 * rounds alternating between the builds. Prints the median over rounds of the mean µs and
 * CPU µs per keyword search for the 500 typical queries of bench/corpus.ts.
 *
 *   npx tsx bench/keyword-inprocess.ts --rounds 9 label=/path/to/worktree ...
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { makeQueries } from './corpus.js'
import { median } from './stats.js'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '9' },
    dir: { type: 'string', default: path.join(os.tmpdir(), 'mnemo-keyword-ab') },
    limit: { type: 'string', default: '24' },
  },
})
const texts = makeQueries(500)
const limit = Number(values.limit)

type Build = { label: string; search: () => Promise<void>; wall: number[]; cpu: number[] }

async function load(label: string, root: string): Promise<Build> {
  const dist = path.join(root, 'dist')
  const at = (...candidates: string[]) => {
    const found = candidates.map((c) => path.join(dist, c)).find((c) => fs.existsSync(c))
    if (!found) throw new Error(`${label}: none of ${candidates.join(', ')}`)
    return found
  }
  // Each build's own modules, typed by what this benchmark calls (older builds differ).
  const storeModule = (await import(at('store/sqlite/index-store.js', 'store/index-store.js'))) as {
    createIndexStore(opts: { dbPath: string; readonly: boolean }): unknown
  }
  const readerModule = (await import(at('search/index-reader.js'))) as {
    createReaderOps(store: unknown): { keyword(req: unknown): Promise<unknown> }
  }
  const analyzer = (await import(at('text/analyzer.js'))) as {
    analyseQuery?: (q: string) => { terms: string[]; names: boolean[] }
    queryTerms: (q: string) => string[]
  }
  const dbPath = path.join(values.dir, `data-${label}`, 'index.sqlite')
  const ops = readerModule.createReaderOps(storeModule.createIndexStore({ dbPath, readonly: true }))
  // Older builds analyse with queryTerms (terms only); newer ones with analyseQuery (terms and names).
  const requests = texts.map((q) => {
    const analysed = analyzer.analyseQuery ? analyzer.analyseQuery(q) : { terms: analyzer.queryTerms(q) }
    return { ...analysed, limit, filters: {} }
  })
  const search = async () => {
    for (const req of requests) await ops.keyword(req)
  }
  return { label, search, wall: [], cpu: [] }
}

const builds: Build[] = []
for (const arg of positionals) {
  const [label, root] = arg.split('=') as [string, string]
  builds.push(await load(label, root))
}
for (const b of builds) await b.search()
for (let round = 0; round < Number(values.rounds); round++) {
  for (const b of round % 2 === 0 ? builds : [...builds].reverse()) {
    const cpu0 = process.cpuUsage()
    const t0 = process.hrtime.bigint()
    await b.search()
    b.wall.push(Number(process.hrtime.bigint() - t0) / 1e3 / texts.length)
    const cpu = process.cpuUsage(cpu0)
    b.cpu.push((cpu.user + cpu.system) / texts.length)
  }
}
for (const b of builds) {
  process.stdout.write(
    `${b.label}: ${median(b.wall).toFixed(1)} µs wall, ${median(b.cpu).toFixed(1)} µs CPU per search (wall by round: ${b.wall.map((x) => x.toFixed(0)).join(' ')})\n`,
  )
}
