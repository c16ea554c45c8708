import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { pino } from 'pino'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { sha256 } from '../../src/domain/hashing.js'
import { NEVER_YIELD } from '../../src/indexing/chunker.js'
import type { ChunkOptions } from '../../src/indexing/chunker.js'
import { prepareText, type FileInput, type PreparedText } from '../../src/indexing/prepare-file.js'
import type { ReadThere, ReadThereInput } from '../../src/indexing/read-there.js'
import { createReaderOps } from '../../src/search/index-reader.js'
import type { IndexReader } from '../../src/store/index-reader.js'
import { createReadThreads, type ReadThreadsDeps } from '../../src/store/sqlite/threads/read-threads.js'
import { createIndexStore } from '../../src/store/sqlite/index-store.js'
import { loadSqliteVec } from '../../src/store/sqlite/sqlite-vec.js'
import { queryTerms } from '../../src/text/analyzer.js'
import { useTestApp } from '../helpers/build-test-app.js'

const QUERIES = [
  'qwen-max 模型升级',
  'redis cache staging',
  '東京の天気',
  'POSTGRES_URL',
  '路径穿越',
  'canary rollout',
  'zzz nothing',
]

/** A file's text to prepare, as a sync reads it (`times`: its mtime, when it was indexed and read). */
const inputOf = (
  rel: string,
  text: string,
  times: Pick<FileInput, 'mtimeMs' | 'indexedAtMs' | 'readSeq'> = { mtimeMs: 0, indexedAtMs: 0, readSeq: 1 },
): FileInput => ({ rel, text, sha256: sha256(text), sizeBytes: Buffer.byteLength(text), ...times })

/** What a thread sends back of a preparation: all of it but where to scan entries from next (read-there.ts). */
const asSent = (p: PreparedText): PreparedText => ({ ...p, checkpoint: { ...p.checkpoint, entryScan: null } })

/** Where the files given to the threads are written first: a thread reads what it prepares. */
const ROOT = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-read-threads-'))
afterAll(() => fs.rmSync(ROOT, { recursive: true, force: true }))

/** The threads' script: this run's bundle (bundles.ts), or the TypeScript entry under tsx. */
const entry = (): URL => {
  const href = inject('readerWorkerEntry')
  return href ? new URL(href) : new URL('../../src/wiring/index-thread.ts', import.meta.url)
}

/**
 * Read threads for these tests: one vector shard, silent, searches quiet unless told; with
 * `prepare`, the indexer's job as wiring/index-thread-jobs.ts asks for it.
 */
const poolOf = (opts: Pick<ReadThreadsDeps, 'size' | 'maxConnections'> & Partial<ReadThreadsDeps>) => {
  const pool = createReadThreads({
    shards: () => 1,
    log: pino({ level: 'silent' }),
    searchesQuiet: () => true,
    entry: entry(),
    ...opts,
  })
  /** `input`'s text written to its file, read and prepared there; its rows. */
  const prepare = async (
    queue: string,
    input: FileInput,
    chunking: ChunkOptions,
    local: () => Promise<PreparedText>,
    background: boolean,
  ): Promise<PreparedText> => {
    fs.mkdirSync(path.dirname(path.join(ROOT, input.rel)), { recursive: true })
    fs.writeFileSync(path.join(ROOT, input.rel), input.text)
    const { text: _text, sha256: hash, sizeBytes, ...file } = input
    const asked: ReadThereInput = { root: ROOT, path: input.rel, maxBytes: 64 << 20, unchangedIf: null, file, chunking }
    const here = async (): Promise<ReadThere> => ({
      kind: 'prepared',
      sha256: hash,
      sizeBytes,
      prepared: await local(),
      malformedLines: 0,
    })
    const got = await pool.run<ReadThere>(queue, 'prepare', [asked], here, background)
    if (got.kind !== 'prepared') throw new Error(`${input.rel}: prepared, not ${JSON.stringify(got)}`)
    return got.prepared
  }
  return Object.assign(pool, { prepare })
}

/** Records every message the main thread posts to a worker, with the worker, until `restore()`. */
const recordPosts = () => {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called on its worker, put back by restore
  const post = Worker.prototype.postMessage
  const given: { worker: Worker; op: string }[] = []
  Worker.prototype.postMessage = function (this: Worker, msg: unknown) {
    post.call(this, msg)
    given.push({ worker: this, op: (msg as { op: string }).op })
  }
  return { given, restore: () => void (Worker.prototype.postMessage = post) }
}

describe('searches in worker threads', () => {
  it('answer exactly as searches on the main thread do', async () => {
    const pooled = await useTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '2' } })
    const local = await useTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '0' } })
    for (const query of QUERIES) {
      const [a, b] = await Promise.all([pooled.search({ query, minScore: 0 }), local.search({ query, minScore: 0 })])
      expect(a.statusCode).toBe(200)
      expect(a.body.results, query).toEqual(b.body.results)
    }
  })

  it.each(['auto', 'scan'])(
    'answer hybrid searches split over vector shards exactly as one unsplit search (%s backend)',
    async (backend) => {
      const env = { MNEMO_EMBED_PROVIDER: 'hash', MNEMO_VECTOR_BACKEND: backend }
      const pooled = await useTestApp({ corpus: true, env: { ...env, MNEMO_SEARCH_WORKERS: '2' } })
      const local = await useTestApp({ corpus: true, env: { ...env, MNEMO_SEARCH_WORKERS: '0' } })
      for (const query of QUERIES) {
        for (const mode of ['hybrid', 'vector']) {
          const [a, b] = await Promise.all([
            pooled.search({ query, mode, minScore: 0 }),
            local.search({ query, mode, minScore: 0 }),
          ])
          expect(a.body.results, `${mode}: ${query}`).toEqual(b.body.results)
        }
      }
    },
  )

  it('see what a sync wrote, and no longer see what it removed', async () => {
    const t = await useTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '2' } })
    expect((await t.search({ query: 'Shinjuku' })).body.results).toHaveLength(1)
    expect((await t.search({ query: 'Osaka' })).body.results).toEqual([])
    t.ws.write('memory/travel.md', '# Travel\nThe flight to Osaka leaves on April 2nd.\n')
    await t.sync()
    // Several searches, so every worker (each with its own term-statistics cache) answers one.
    for (let i = 0; i < 4; i++) {
      expect((await t.search({ query: 'Osaka' })).body.results[0]?.path).toBe('memory/travel.md')
      expect((await t.search({ query: 'Shinjuku' })).body.results).toEqual([])
    }
  })

  it('degrade to the main thread when a worker cannot open the index, instead of failing', async () => {
    const t = await useTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '0' } })
    const store = createIndexStore({ dbPath: path.join(t.ws.dataDir, 'index.sqlite') })
    const fallback = createReaderOps(store)
    const pool = poolOf({ size: 2, maxConnections: 4 })
    try {
      const reader = pool.forIndex(path.join(t.ws.base, 'missing.sqlite'), fallback)
      const req = { terms: queryTerms('redis cache'), limit: 5, filters: {} }
      const hits = await reader.keyword(req)
      expect(hits).toEqual(await fallback.keyword(req))
      expect(hits.length).toBeGreaterThan(0)
      expect([...(await reader.texts([hits[0]!.id])).values()][0]?.text).toContain('Redis')
      expect(pool.liveWorkers()).toBe(2)
    } finally {
      await pool.close()
      store.close()
    }
  })

  it('serve several index files from the same workers, each its own', async () => {
    const a = await useTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '0' } })
    const b = await useTestApp({ env: { MNEMO_SEARCH_WORKERS: '0' }, sync: false })
    b.ws.write('memory/other.md', '# Other\nRedis runs on the other host.\n')
    await b.sync()
    const stores = [a, b].map((x) => createIndexStore({ dbPath: path.join(x.ws.dataDir, 'index.sqlite') }))
    const pool = poolOf({ size: 2, maxConnections: 1 })
    try {
      const readers = stores.map((s) => pool.forIndex(s.dbPath, createReaderOps(s)))
      const req = { terms: queryTerms('redis'), limit: 5, filters: {} }
      // One connection per worker: each call for the other file closes the one it has.
      for (let round = 0; round < 3; round++) {
        const [hitsA, hitsB] = await Promise.all(readers.map((r) => r.keyword(req)))
        expect(hitsA!.map((h) => h.path)).toEqual((await createReaderOps(stores[0]!).keyword(req)).map((h) => h.path))
        expect(hitsB!.map((h) => h.path)).toEqual(['memory/other.md'])
      }
      await readers[1]!.close()
      expect((await readers[1]!.keyword(req)).map((h) => h.path)).toEqual(['memory/other.md'])
    } finally {
      await pool.close()
      for (const s of stores) s.close()
    }
  })

  it('say whether a search is waiting for a worker or running on one, background jobs aside', async () => {
    const app = await useTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '0' } })
    const store = createIndexStore({ dbPath: path.join(app.ws.dataDir, 'index.sqlite') })
    const pool = poolOf({ size: 1, maxConnections: 1 })
    try {
      const reader = pool.forIndex(store.dbPath, createReaderOps(store))
      expect(pool.searching()).toBe(false)
      const searched = reader.keyword({ terms: queryTerms('redis'), limit: 5, filters: {} })
      expect(pool.searching()).toBe(true)
      await searched
      expect(pool.searching()).toBe(false)
      const local = () => Promise.reject(new Error('prepared here'))
      const chunking = { maxTokens: 120, overlapTokens: 20 }
      const prepared = pool.prepare('a.sqlite#jobs', inputOf('memory/a.md', bigDay(60, 1)), chunking, local, true)
      expect(pool.searching()).toBe(false)
      await prepared
    } finally {
      await pool.close()
      store.close()
    }
  })

  it("take calls from each index file in turn: one agent's queue of searches does not hold back another's", async () => {
    const a = await useTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '0' } })
    const b = await useTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '0' } })
    const stores = [a, b].map((x) => createIndexStore({ dbPath: path.join(x.ws.dataDir, 'index.sqlite') }))
    const pool = poolOf({ size: 1, maxConnections: 2 })
    try {
      const [busy, other] = stores.map((s) => pool.forIndex(s.dbPath, createReaderOps(s))) as [IndexReader, IndexReader]
      const req = { terms: queryTerms('redis cache staging'), limit: 50, filters: {} }
      // Warm both connections, so the order below is the queue's, not the opening's.
      await Promise.all([busy.keyword(req), other.keyword(req)])
      const order: string[] = []
      const many = Array.from({ length: 12 }, (_, i) => busy.keyword(req).then(() => void order.push(`busy ${i}`)))
      const one = other.keyword(req).then(() => void order.push('other'))
      await Promise.all([...many, one])
      // One worker takes two calls at a time, then the files take turns: the other file's
      // call is answered fourth at the latest, not thirteenth.
      expect(order.indexOf('other')).toBeLessThanOrEqual(3)
      expect(order.filter((o) => o.startsWith('busy'))).toEqual(Array.from({ length: 12 }, (_, i) => `busy ${i}`))
    } finally {
      await pool.close()
      for (const s of stores) s.close()
    }
  })
  it.each([
    ['as background work, after every search queued or running, however late it came', true, 60_000],
    ['as background work, in turn with searches once it has waited its longest', true, 0],
    ['for a pass a request waits for, in turn with searches', false, 60_000],
  ])('prepare a file %s', async (_, background, backgroundMaxWaitMs) => {
    const t = await useTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '0' } })
    const store = createIndexStore({ dbPath: path.join(t.ws.dataDir, 'index.sqlite') })
    const pool = poolOf({ size: 1, maxConnections: 1, backgroundMaxWaitMs })
    const { given, restore } = recordPosts()
    try {
      const reader = pool.forIndex(store.dbPath, createReaderOps(store))
      const req = { terms: queryTerms('redis cache staging'), limit: 50, filters: {} }
      await reader.keyword(req)
      const since = given.length
      const text = bigDay(40)
      const input = inputOf('memory/2026-05-01.md', text)
      const order: string[] = []
      const before = Array.from({ length: 6 }, (_, i) => reader.keyword(req).then(() => void order.push(`search ${i}`)))
      const prepared = pool
        .prepare(
          'q',
          input,
          { maxTokens: 120, overlapTokens: 20 },
          () => Promise.reject(new Error('prepared here')),
          background,
        )
        .then(() => void order.push('prepare'))
      const after = Array.from({ length: 6 }, (_, i) =>
        reader.keyword(req).then(() => void order.push(`search ${i + 6}`)),
      )
      await Promise.all([...before, prepared, ...after])
      // When the worker was given it: a thread reading the file answers searches meanwhile.
      const givenAt = given.slice(since).findIndex((g) => g.op === 'job')
      if (background && backgroundMaxWaitMs > 0) {
        expect(givenAt).toBe(12)
        expect(order.at(-1)).toBe('prepare')
      } else expect(givenAt).toBeLessThan(6)
    } finally {
      restore()
      await pool.close()
      store.close()
    }
  })

  it('prepare a file on the main thread as background work asked for while searches come, on a worker otherwise', async () => {
    let quiet = true
    const pool = poolOf({ size: 1, maxConnections: 1, searchesQuiet: () => quiet })
    try {
      const text = bigDay(20)
      const input = inputOf('memory/2026-05-01.md', text)
      const chunking = { maxTokens: 120, overlapTokens: 20 }
      let here = 0
      const local = () => {
        here++
        return prepareText(input, chunking, NEVER_YIELD)
      }
      // No search for a while: on the worker.
      await pool.prepare('q', input, chunking, local, true)
      expect(here).toBe(0)
      // A search comes (the service's Foreground says so).
      quiet = false
      const expected = await prepareText(input, chunking, NEVER_YIELD)
      // Right after a search: here, where the pass gives way to searches slice by slice.
      expect(await pool.prepare('q', input, chunking, local, true)).toEqual(expected)
      expect(here).toBe(1)
      // A pass a request waits for still goes to the worker.
      expect(await pool.prepare('q', input, chunking, local, false)).toEqual(asSent(expected))
      expect(here).toBe(1)
    } finally {
      await pool.close()
    }
  })

  /** A day file of `entries` notes: headings, Chinese, a fence, a long line, CRLF lines. */
  const bigDay = (entries: number, from = 0) =>
    Array.from({ length: entries }, (_, n) => {
      const i = from + n
      const fence = i % 7 === 0 ? '```sh\nkubectl rollout restart deploy/api\n```\n' : ''
      const long = i % 11 === 0 ? `${'redis '.repeat(600)}\n` : ''
      return `## 09:${String(i % 60).padStart(2, '0')}\r\n- 部署 canary ${i} to staging, 缓存命中率 ${i}%\n${fence}${long}`
    }).join('\n')

  it("prepare files' rows on a worker exactly as the main thread does", async () => {
    const pool = poolOf({ size: 1, maxConnections: 1 })
    try {
      const text = bigDay(120)
      const input = inputOf('memory/2026-05-01.md', text, { mtimeMs: 1_000, indexedAtMs: 2_000, readSeq: 7 })
      const chunking = { maxTokens: 120, overlapTokens: 20 }
      const there = await pool.prepare('q', input, chunking, () => Promise.reject(new Error('prepared here')), true)
      const here = await prepareText(input, chunking, NEVER_YIELD)
      expect(there.file.chunks.length).toBeGreaterThan(50)
      expect(there).toEqual(asSent(here))
      expect(here.checkpoint.entryScan).not.toBeNull()
    } finally {
      await pool.close()
    }
  })

  it('prepare a file once on another worker when the one given it dies first', async () => {
    const pool = poolOf({ size: 2, maxConnections: 1 })
    // The first worker given a preparation is terminated at once (a crash, an OOM kill).
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called on its worker, put back after
    const post = Worker.prototype.postMessage
    const given: Worker[] = []
    Worker.prototype.postMessage = function (this: Worker, msg: unknown) {
      post.call(this, msg)
      if ((msg as { job?: string }).job !== 'prepare') return
      given.push(this)
      if (given.length === 1) void this.terminate()
    }
    try {
      const text = bigDay(400)
      const input = inputOf('memory/2026-05-02.md', text, { mtimeMs: 1_000, indexedAtMs: 2_000, readSeq: 3 })
      const chunking = { maxTokens: 120, overlapTokens: 20 }
      let here = 0
      const there = await pool.prepare(
        'q',
        input,
        chunking,
        () => {
          here++
          return prepareText(input, chunking, NEVER_YIELD)
        },
        true,
      )
      expect(there).toEqual(asSent(await prepareText(input, chunking, NEVER_YIELD)))
      // Given again to the other worker, once: not prepared here, nor twice there.
      expect(here).toBe(0)
      expect(given).toHaveLength(2)
      expect(given[1]).not.toBe(given[0])
      expect(pool.liveWorkers()).toBe(1)
    } finally {
      Worker.prototype.postMessage = post
      await pool.close()
    }
  })

  it('send each part of a split vector search to the same worker every time, so each holds only its shards', async () => {
    const t = await useTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '0' } })
    const store = createIndexStore({ dbPath: path.join(t.ws.dataDir, 'index.sqlite') })
    const pool = poolOf({ size: 2, maxConnections: 1, shards: () => 4 })
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called on its worker, put back after
    const post = Worker.prototype.postMessage
    const partsOf = new Map<Worker, Set<string>>()
    Worker.prototype.postMessage = function (this: Worker, msg: unknown) {
      post.call(this, msg)
      const m = msg as { op?: string; req?: { shards?: number[] } }
      if (m.op !== 'vector') return
      const seen = partsOf.get(this) ?? new Set<string>()
      seen.add(JSON.stringify(m.req?.shards))
      partsOf.set(this, seen)
    }
    try {
      const reader = pool.forIndex(store.dbPath, createReaderOps(store))
      const vector = new Float32Array(256).fill(1 / 16)
      const keyword = { terms: queryTerms('redis cache staging'), limit: 5, filters: {} }
      // Keyword calls in between keep one worker or the other busy when a part comes.
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i % 3 === 0 ? reader.keyword(keyword) : reader.vector({ vector, limit: 5, filters: {} }),
        ),
      )
      expect([...partsOf.values()].map((parts) => [...parts]).sort()).toEqual([['[0,2]'], ['[1,3]']])
    } finally {
      Worker.prototype.postMessage = post
      await pool.close()
      store.close()
    }
  })

  it('renew the workers that prepared files: the old one answers what it was given and ends, the new one takes its place', async () => {
    const t = await useTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '0', MNEMO_EMBED_PROVIDER: 'hash' } })
    const dbPath = path.join(t.ws.dataDir, 'index.sqlite')
    const store = createIndexStore({ dbPath, loadVectorExtension: loadSqliteVec })
    const fallback = createReaderOps(store)
    const pool = poolOf({ size: 2, maxConnections: 1, shards: () => 4 })
    const { given, restore } = recordPosts()
    try {
      const reader = pool.forIndex(store.dbPath, fallback)
      const keyword = { terms: queryTerms('redis cache staging'), limit: 5, filters: {} }
      const vector = { vector: new Float32Array(256).fill(1 / 16), limit: 5, filters: {} }
      const expected = { keyword: await fallback.keyword(keyword), vector: await fallback.vector(vector) }
      expect(expected.keyword.length).toBeGreaterThan(0)
      expect(expected.vector.length).toBeGreaterThan(0)
      expect(await reader.keyword(keyword)).toEqual(expected.keyword)
      expect(pool.renew()).toBe(0)

      const input = inputOf('memory/2026-05-03.md', bigDay(200), { mtimeMs: 1_000, indexedAtMs: 2_000, readSeq: 4 })
      const chunking = { maxTokens: 120, overlapTokens: 20 }
      const prepared = pool.prepare('q', input, chunking, () => Promise.reject(new Error('prepared here')), false)
      const preparer = given.find((g) => g.op === 'job')!.worker
      const ended = new Promise<number>((resolve) => preparer.once('exit', resolve))
      // Renewed while the preparation runs: only the worker that ran a job is replaced.
      expect(pool.renew()).toBe(1)
      expect(await prepared).toEqual(asSent(await prepareText(input, chunking, NEVER_YIELD)))
      await ended
      // Answered by the worker it was given to, not given again to another.
      expect(given.filter((g) => g.op === 'job')).toHaveLength(1)
      expect(pool.liveWorkers()).toBe(2)
      expect(pool.renew()).toBe(0)

      // The new worker answers in the old one's place: each vector part on a worker of its own.
      const since = given.length
      expect(await reader.keyword(keyword)).toEqual(expected.keyword)
      expect(await reader.vector(vector)).toEqual(expected.vector)
      const after = given.slice(since)
      expect(after.some((g) => g.worker === preparer)).toBe(false)
      expect(new Set(after.filter((g) => g.op === 'vector').map((g) => g.worker)).size).toBe(2)

      // A worker that has answered a vector search keeps its copy of the vectors: not renewed.
      await pool.prepare('q', input, chunking, () => Promise.reject(new Error('prepared here')), false)
      expect(pool.renew()).toBe(0)
    } finally {
      restore()
      await pool.close()
      store.close()
    }
  })

  it('close the file on a renewed worker still answering, before a rebuild swap', async () => {
    const t = await useTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '0' } })
    const store = createIndexStore({ dbPath: path.join(t.ws.dataDir, 'index.sqlite') })
    const pool = poolOf({ size: 1, maxConnections: 1 })
    const { given, restore } = recordPosts()
    try {
      const reader = pool.forIndex(store.dbPath, createReaderOps(store))
      await reader.keyword({ terms: queryTerms('redis cache'), limit: 5, filters: {} })
      const old = given[0]!.worker
      const input = inputOf('memory/2026-05-04.md', bigDay(300))
      const chunking = { maxTokens: 120, overlapTokens: 20 }
      const prepared = pool.prepare('q', input, chunking, () => Promise.reject(new Error('prepared here')), false)
      expect(pool.renew()).toBe(1)
      // The old worker still prepares, with the index open: the swap's suspend closes it there too.
      await reader.suspend()
      expect(given.filter((g) => g.op === 'close').map((g) => g.worker)).toContain(old)
      reader.resume()
      await prepared
    } finally {
      restore()
      await pool.close()
      store.close()
    }
  })

  it('give background preparations to every worker while no search comes', async () => {
    const pool = poolOf({ size: 2, maxConnections: 1 })
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called on its worker, put back after
    const post = Worker.prototype.postMessage
    let answered = 0
    const givenBeforeAnAnswer: Worker[] = []
    Worker.prototype.postMessage = function (this: Worker, msg: unknown) {
      post.call(this, msg)
      if ((msg as { job?: string }).job === 'prepare' && answered === 0) givenBeforeAnAnswer.push(this)
    }
    try {
      const chunking = { maxTokens: 120, overlapTokens: 20 }
      const local = () => Promise.reject(new Error('prepared here'))
      await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          pool
            .prepare('a.sqlite#jobs', inputOf(`memory/a-${i}.md`, bigDay(60, i)), chunking, local, true)
            .then(() => void answered++),
        ),
      )
      // Two calls each at once, as for searches (one in all while searches come); the fifth
      // may be posted as the first answer comes, before its promise settles.
      expect(givenBeforeAnAnswer.length).toBeGreaterThanOrEqual(4)
      expect(new Set(givenBeforeAnAnswer.slice(0, 4)).size).toBe(2)
    } finally {
      Worker.prototype.postMessage = post
      await pool.close()
    }
  })

  it("answer another agent's call after a few of one agent's many queued preparations, not after all", async () => {
    const pool = poolOf({ size: 2, maxConnections: 1 })
    try {
      const chunking = { maxTokens: 120, overlapTokens: 20 }
      const done: string[] = []
      const local = () => Promise.reject(new Error('prepared here'))
      // One agent's first sync: 30 big files queued at once in its own queue.
      const first = Array.from({ length: 30 }, (_, i) =>
        pool.prepare('a.sqlite#jobs', inputOf(`memory/a-${i}.md`, bigDay(150, i)), chunking, local, true).then(() => {
          done.push(`a${i}`)
        }),
      )
      // Another agent's call, queued after all of them.
      const other = pool
        .prepare('b.sqlite#jobs', inputOf('memory/b.md', bigDay(2)), chunking, local, true)
        .then(() => done.push('b'))
      await Promise.all([...first, other])
      // Ahead of it only what the two workers held (two each), a turn of the queue, and what
      // the other worker finished meanwhile: not the 30.
      expect(done.indexOf('b')).toBeLessThan(8)
    } finally {
      await pool.close()
    }
  })

  it('index big files prepared on the workers as the main thread would, before and after they grow', async () => {
    const pooled = await useTestApp({ env: { MNEMO_SEARCH_WORKERS: '2' }, sync: false })
    const local = await useTestApp({ env: { MNEMO_SEARCH_WORKERS: '0' }, sync: false })
    const queries = ['canary 12', '缓存命中率', 'kubectl rollout', 'redis', 'staging 部署 41']
    const same = async (what: string) => {
      for (const query of queries) {
        const [a, b] = await Promise.all([pooled.search({ query, minScore: 0 }), local.search({ query, minScore: 0 })])
        expect(a.statusCode).toBe(200)
        expect(a.body.results.length, `${what}: ${query}`).toBeGreaterThan(0)
        expect(a.body.results, `${what}: ${query}`).toEqual(b.body.results)
      }
    }
    for (const t of [pooled, local]) {
      for (let d = 1; d <= 3; d++) t.ws.write(`memory/2026-05-0${d}.md`, bigDay(80, d * 100))
      await t.sync()
    }
    await same('first sync')
    // Grown at its end: prepared from the checkpoint its first preparation left.
    for (const t of [pooled, local]) {
      t.ws.write('memory/2026-05-02.md', bigDay(80, 200) + '\n' + bigDay(5, 900))
      await t.sync()
    }
    await same('after an append')
  })
})
