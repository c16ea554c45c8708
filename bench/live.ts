/**
 * Live-sync benchmark (issue 4), on the 10,000-chunk synthetic workspace:
 * - edit-to-searchable: append a line with a new word to a day file on disk, then poll
 *   GET /files every 5 ms until the index holds the new content and confirm with a search;
 *   with MNEMO_SYNC_DEBOUNCE_MS=0 (the pipeline alone: watcher, sync, index) and with the
 *   default 1500 ms. Polling /search instead shows the other path: a search while changes
 *   wait for their debounce starts the sync at once;
 * - /flush-to-searchable: a flush with a new word, then one search that must find it;
 * - full rebuild time (POST /index {full:true}, wait);
 * - keyword /search latency with one client, idle and while rebuilds run back to back.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { makeQueries, writeCorpus } from './corpus.js'
import { createClient } from './http-client.js'
import { startServer } from './server-process.js'
import { median, percentile } from './stats.js'

export type LiveBenchOptions = {
  tmp: string
  runs: number
  files: number
  notesPerFile: number
  /** Edits per run without debounce, and with the 1500 ms default (each takes ~1.6 s). */
  edits: number
  debouncedEdits: number
  flushes: number
  searches: number
}

type Client = ReturnType<typeof createClient>

const found = (body: string) => (JSON.parse(body) as { results: unknown[] }).results.length > 0

/** Polls /search for `word` until it is found; the time since `since`, in ms. */
async function untilFound(client: Client, word: string, since: number, timeoutMs = 30_000): Promise<number> {
  for (;;) {
    const res = await client.request('POST', '/search', { query: word, minScore: 0 })
    if (res.status === 200 && found(res.body)) return performance.now() - since
    if (performance.now() - since > timeoutMs) throw new Error(`"${word}" was not searchable after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 2))
  }
}

/** Polls GET /files until `rel` is indexed with `sha256`, then searches for `word` once. */
async function untilIndexed(client: Client, rel: string, sha256: string, word: string, since: number) {
  for (;;) {
    const res = await client.request('GET', '/files')
    const files = (JSON.parse(res.body) as { files: { path: string; sha256: string }[] }).files
    if (files.some((f) => f.path === rel && f.sha256 === sha256)) break
    if (performance.now() - since > 30_000) throw new Error(`${rel} was not re-indexed within 30 s`)
    await new Promise((r) => setTimeout(r, 5))
  }
  const check = await client.request('POST', '/search', { query: word, minScore: 0 })
  if (!found(check.body)) throw new Error(`"${word}" was indexed but not found`)
  return performance.now() - since
}

/**
 * Appends a line with a new word to a day file and measures until it is searchable,
 * watching the index (`probe: 'files'`) or searching for the word (`probe: 'search'`).
 */
async function editLatencies(
  client: Client,
  workspace: string,
  opts: { count: number; tag: string; probe: 'files' | 'search' },
): Promise<number[]> {
  const files = fs.readdirSync(path.join(workspace, 'memory')).filter((f) => f.endsWith('.md'))
  const samples: number[] = []
  for (let i = 0; i < opts.count; i++) {
    const word = `edit${opts.tag}x${i}zq`
    const name = files[(i * 7) % files.length] as string
    const file = path.join(workspace, 'memory', name)
    const since = performance.now()
    fs.appendFileSync(file, `\n- live edit ${word}\n`)
    const sha256 = createHash('sha256').update(fs.readFileSync(file)).digest('hex')
    samples.push(
      opts.probe === 'files'
        ? await untilIndexed(client, `memory/${name}`, sha256, word, since)
        : await untilFound(client, word, since),
    )
  }
  return samples
}

async function flushLatencies(client: Client, count: number, tag: string) {
  const flush: number[] = []
  const searchable: number[] = []
  for (let i = 0; i < count; i++) {
    const word = `flush${tag}x${i}zq`
    const res = await client.request('POST', '/flush', { content: `- ${word}`, sessionId: 'bench', flushId: word })
    if (res.status !== 200) throw new Error(`flush failed: ${res.body}`)
    const check = await client.request('POST', '/search', { query: word, minScore: 0 })
    if (!found(check.body)) throw new Error(`"${word}" was not searchable right after its flush`)
    flush.push(res.ms)
    searchable.push(res.ms + check.ms)
  }
  return { flush, searchable }
}

/** Sequential searches; with `during`, only while it runs (and until `count` samples). */
async function searchLatencies(client: Client, queries: string[], count: number, during?: () => boolean) {
  const samples: number[] = []
  for (let i = 0; samples.length < count && (during === undefined || during()); i++) {
    const res = await client.request('POST', '/search', { query: queries[i % queries.length] })
    if (res.status !== 200) throw new Error(`search failed: ${res.body}`)
    samples.push(res.ms)
  }
  return samples
}

export async function benchLive(opts: LiveBenchOptions) {
  const workspace = path.join(opts.tmp, 'workspace-live')
  writeCorpus(workspace, opts.files, opts.notesPerFile)
  const queries = makeQueries(500)
  const perRun = {
    editP50: [] as number[],
    editP95: [] as number[],
    flushP50: [] as number[],
    flushP95: [] as number[],
    flushSearchableP95: [] as number[],
    rebuildMs: [] as number[],
    idleP50: [] as number[],
    idleP99: [] as number[],
    rebuildP50: [] as number[],
    rebuildP99: [] as number[],
    debouncedP50: [] as number[],
    debouncedP95: [] as number[],
    searchedP50: [] as number[],
    searchedP95: [] as number[],
  }
  let chunks = 0
  for (let run = 0; run < opts.runs; run++) {
    const dataDir = path.join(opts.tmp, `data-live-${run}`)
    const env = { MNEMO_WORKSPACE: workspace, MNEMO_DATA_DIR: dataDir, MNEMO_WATCH: 'true' }
    let server = await startServer({ ...env, MNEMO_SYNC_DEBOUNCE_MS: '0' })
    let client = createClient(server.baseUrl)
    try {
      const cold = await client.request('POST', '/index?wait=true', {})
      chunks = (JSON.parse(cold.body) as { chunks: number }).chunks
      for (const query of queries.slice(0, 200)) await client.request('POST', '/search', { query })

      const edits = await editLatencies(client, workspace, { count: opts.edits, tag: `r${run}`, probe: 'files' })
      perRun.editP50.push(percentile(edits, 50))
      perRun.editP95.push(percentile(edits, 95))

      const flushes = await flushLatencies(client, opts.flushes, `r${run}`)
      perRun.flushP50.push(percentile(flushes.flush, 50))
      perRun.flushP95.push(percentile(flushes.flush, 95))
      perRun.flushSearchableP95.push(percentile(flushes.searchable, 95))

      const idle = await searchLatencies(client, queries, opts.searches)
      perRun.idleP50.push(percentile(idle, 50))
      perRun.idleP99.push(percentile(idle, 99))

      // Rebuilds back to back on a second connection while this one searches.
      const rebuilder = createClient(server.baseUrl)
      const during: number[] = []
      let rebuilding = true
      const rebuilds = (async () => {
        while (during.length < opts.searches) {
          const res = await rebuilder.request('POST', '/index?wait=true', { full: true })
          if (res.status !== 200) throw new Error(`rebuild failed: ${res.body}`)
          perRun.rebuildMs.push(res.ms)
        }
        rebuilding = false
      })()
      while (rebuilding) during.push(...(await searchLatencies(client, queries, 50, () => rebuilding)))
      await rebuilds
      rebuilder.close()
      perRun.rebuildP50.push(percentile(during, 50))
      perRun.rebuildP99.push(percentile(during, 99))
    } finally {
      client.close()
      await server.stop()
    }

    server = await startServer(env)
    client = createClient(server.baseUrl)
    try {
      await client.request('POST', '/index?wait=true', {})
      const debounced = await editLatencies(client, workspace, {
        count: opts.debouncedEdits,
        tag: `d${run}`,
        probe: 'files',
      })
      perRun.debouncedP50.push(percentile(debounced, 50))
      perRun.debouncedP95.push(percentile(debounced, 95))
      const searched = await editLatencies(client, workspace, { count: opts.edits, tag: `s${run}`, probe: 'search' })
      perRun.searchedP50.push(percentile(searched, 50))
      perRun.searchedP95.push(percentile(searched, 95))
    } finally {
      client.close()
      await server.stop()
    }
  }
  const m = Object.fromEntries(Object.entries(perRun).map(([k, v]) => [k, median(v)])) as Record<
    keyof typeof perRun,
    number
  >
  return { chunks, ...m, samples: perRun }
}
