/**
 * What entries cost a search (issue 31): the synthetic workspace twice, once as it is and
 * once with a metadata comment under every note's heading, 30 % of them superseded (so a
 * search must leave those out), each indexed by its own service. Keyword and hybrid (`hash`
 * vectors) /search latency with one client, the two workspaces measured in turns so a noisy
 * machine weighs on both alike. Target: within 5 % of the workspace without metadata. Then
 * what a write as an entry costs: /flush p50 of plain notes and of notes with an origin (a
 * metadata comment, and the lookup for a duplicate), in turns, and of notes with a key (its
 * lock, and superseding the entry with that key: a second atomic write of that day file).
 */
import fs from 'node:fs'
import path from 'node:path'
import { createRandom, makeCommonQueries, makeQueries, writeCorpus } from './corpus.js'
import type { BenchEngine } from './engines.js'
import { createClient } from './http-client.js'
import { measureLatency } from './measure.js'
import { startServer, type ServerProcess } from './server-process.js'
import { median } from './stats.js'

export type EntriesBenchOptions = {
  tmp: string
  engine: BenchEngine
  runs: number
  files: number
  notesPerFile: number
  latencyRequests: number
  /** Share of the entries superseded. */
  superseded: number
}

/** Adds a metadata comment under each `##` heading of the workspace's day files. */
export function addMetadata(root: string, superseded: number, seed = 11): { entries: number; superseded: number } {
  const r = createRandom(seed)
  const dir = path.join(root, 'memory')
  let entries = 0
  let old = 0
  for (const name of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, name)
    const day = name.slice(0, 10)
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    const out: string[] = []
    for (const line of lines) {
      out.push(line)
      if (!line.startsWith('## ')) continue
      const isOld = r.next() < superseded
      entries++
      if (isOld) old++
      out.push(
        `<!-- observed: ${day} | status: ${isOld ? 'superseded' : 'active'} | key: k${entries % 997} | origin: agent -->`,
      )
    }
    fs.writeFileSync(file, out.join('\n'))
  }
  return { entries, superseded: old }
}

type Side = { name: 'plain' | 'entries'; server: ServerProcess; client: ReturnType<typeof createClient> }

/** Flushes of plain notes and entries per run, in turns (as many keyed ones after): each a new note. */
const FLUSHES = 200

export async function benchEntries(opts: EntriesBenchOptions) {
  const sides: Side[] = []
  let marked = { entries: 0, superseded: 0 }
  for (const name of ['plain', 'entries'] as const) {
    const workspace = path.join(opts.tmp, `workspace-${name}`)
    writeCorpus(workspace, opts.files, opts.notesPerFile)
    if (name === 'entries') marked = addMetadata(workspace, opts.superseded)
    const dataDir = path.join(opts.tmp, `data-${name}`)
    const server = await startServer({
      MNEMO_WORKSPACE: workspace,
      ...opts.engine.env(dataDir),
      MNEMO_EMBED_PROVIDER: 'hash',
    })
    const client = createClient(server.baseUrl)
    const indexed = await client.request('POST', '/index?wait=true', {})
    if (indexed.status !== 200) throw new Error(`index failed: ${indexed.body}`)
    sides.push({ name, server, client })
  }
  const queries = makeQueries(500)
  const common = makeCommonQueries(200)
  const p50 = {
    keyword: { plain: [] as number[], entries: [] as number[] },
    hybrid: { plain: [] as number[], entries: [] as number[] },
  }
  const flushP50 = { plain: [] as number[], entry: [] as number[], keyed: [] as number[] }
  try {
    for (const side of sides) {
      for (const query of queries.slice(0, 100)) await side.client.request('POST', '/search', { query })
    }
    for (let run = 0; run < opts.runs; run++) {
      for (const side of run % 2 === 0 ? sides : [...sides].reverse()) {
        for (const mode of ['keyword', 'hybrid'] as const) {
          const list = mode === 'keyword' ? [...queries, ...common] : queries
          const measured = await measureLatency(side.client, list, {
            runs: 1,
            requests: opts.latencyRequests,
            fields: { mode },
          })
          p50[mode][side.name].push(...measured.p50)
        }
      }
    }
    // Writes last: they change the workspace the searches above measured. Plain notes and
    // entries go in turns to the same day file of one service (which grows as they land), so
    // both see the same file; keyed entries after them, half of them superseding an earlier one.
    const writer = sides[1]
    for (let run = 0; writer && run < opts.runs; run++) {
      const times = { plain: [] as number[], entry: [] as number[], keyed: [] as number[] }
      for (let i = 0; i < 2 * FLUSHES; i++) {
        const kind = i < FLUSHES ? (i % 2 === 0 ? 'plain' : 'entry') : 'keyed'
        const body = {
          content: `- ${kind} note ${run}.${i}: the build cache moved to volume ${(i * 7919) % 10007}`,
          ...(kind !== 'plain' && { origin: 'agent' }),
          ...(kind === 'keyed' && { key: `fact-${i % (FLUSHES / 2)}` }),
        }
        const res = await writer.client.request('POST', '/flush', body)
        if (res.status !== 200) throw new Error(`flush failed: ${res.body}`)
        times[kind].push(res.ms)
      }
      for (const kind of ['plain', 'entry', 'keyed'] as const) flushP50[kind].push(median(times[kind]))
    }
  } finally {
    for (const side of sides) {
      side.client.close()
      await side.server.stop()
    }
    for (const name of ['plain', 'entries']) await opts.engine.drop(path.join(opts.tmp, `data-${name}`))
  }
  const ratio = (mode: 'keyword' | 'hybrid') => median(p50[mode].entries) / median(p50[mode].plain)
  return {
    entries: marked.entries,
    superseded: marked.superseded,
    keyword: { plainMs: median(p50.keyword.plain), entriesMs: median(p50.keyword.entries), ratio: ratio('keyword') },
    hybrid: { plainMs: median(p50.hybrid.plain), entriesMs: median(p50.hybrid.entries), ratio: ratio('hybrid') },
    flush: {
      plainMs: median(flushP50.plain),
      entryMs: median(flushP50.entry),
      keyedMs: median(flushP50.keyed),
    },
    runs: p50,
  }
}
