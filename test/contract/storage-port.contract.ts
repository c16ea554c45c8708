/**
 * The storage port's contract (src/store/port.ts), run against every engine: what the
 * services rely on, whatever holds the index. Each engine's test file calls
 * describeStoragePort with a factory for a fresh engine.
 */
import type { ChunkEntry } from '../../src/domain/entry-meta.js'
import { afterEach, describe, expect, it } from 'vitest'
import type { ChunkFilters, ChunkInput, DateRange, FileRecord } from '../../src/domain/chunks.js'
import { normalizeVector } from '../../src/domain/vectors.js'
import type { FileRows, SpaceKey, SpaceStore, StepOptions, StorageEngine } from '../../src/store/port.js'
import { indexTokens } from '../../src/text/analyzer.js'

export type EngineUnderTest = {
  engine: StorageEngine
  /** Whether the engine was set up to store vectors (DIMS of them). */
  vectors: boolean
  /** Closes the engine and removes what it wrote. */
  dispose(): Promise<void>
}

/** Vector dimensions the engines under test are set up with. */
export const DIMS = 4

const STEPS: StepOptions = { between: async () => undefined }
const MAIN: SpaceKey = { kind: 'agent', id: 'main' }

/** A chunk of `text` at `line`, analysed as indexing does (without headings). */
function chunk(
  text: string,
  line: number,
  vector?: number[],
  datedMs: number | null = null,
  entry: ChunkEntry | null = null,
): ChunkInput {
  const bodyTerms = indexTokens(text)
  return {
    startLine: line,
    endLine: line,
    text,
    headings: '',
    contentHash: `${line}:${text}`,
    bodyTerms: bodyTerms.join(' '),
    headingTerms: '',
    tokenCount: bodyTerms.length,
    datedMs,
    entry,
    ...(vector && { vector: normalizeVector(vector, DIMS) }),
  }
}

function file(
  path: string,
  readSeq: number,
  texts: (string | [string, number[]])[],
  datedMs: number | null = null,
): FileRows {
  const chunks = texts.map((t, i) =>
    typeof t === 'string' ? chunk(t, i + 1, undefined, datedMs) : chunk(t[0], i + 1, t[1], datedMs),
  )
  const record: FileRecord = {
    path,
    source: 'memory',
    sha256: `sha-${path}-${readSeq}`,
    sizeBytes: 100,
    mtimeMs: 1000,
    lineCount: texts.length,
    chunkCount: chunks.length,
    indexedAtMs: 2000,
    readSeq,
  }
  return { record, chunks }
}

/** The analysed term of one word (`redis` is indexed as `redi`). */
const term = (word: string): string => indexTokens(word)[0] as string

/** Paths of the keyword candidates for `query`, best first. */
async function candidatePaths(store: SpaceStore, query: string): Promise<string[]> {
  const rows = await store.candidates({ terms: indexTokens(query), limit: 10, headingWeight: 2 })
  return rows.map((r) => r.path)
}

export function describeStoragePort(name: string, make: () => Promise<EngineUnderTest>): void {
  describe(`storage port: ${name}`, () => {
    const open: EngineUnderTest[] = []
    afterEach(async () => {
      for (const e of open.splice(0)) await e.dispose()
    })
    async function space(key: SpaceKey = MAIN): Promise<{ store: SpaceStore; vectors: boolean }> {
      const under = await make()
      open.push(under)
      const store = await under.engine.openSpace(key)
      return { store, vectors: under.vectors }
    }

    it('opens a new space empty and fresh, and keeps its meta values', async () => {
      const { store } = await space()
      expect(store.fresh).toBe(true)
      expect(await store.listFiles()).toEqual([])
      expect(await store.counts()).toEqual([])
      expect(await store.getMeta('identity')).toBeUndefined()
      await store.setMeta('identity', 'v1')
      await store.setMeta('identity', 'v2')
      expect(await store.getMeta('identity')).toBe('v2')
    })

    it('writes files and reads them back; a later read of a file replaces its chunks', async () => {
      const { store } = await space()
      await store.applyChanges({ replace: [file('memory/a.md', 1, ['redis cache notes', 'second line'])] }, STEPS)
      expect((await store.getFile('memory/a.md'))?.chunkCount).toBe(2)
      expect(await candidatePaths(store, 'redis')).toEqual(['memory/a.md'])
      await store.applyChanges({ replace: [file('memory/a.md', 2, ['postgres notes'])] }, STEPS)
      expect(await candidatePaths(store, 'redis')).toEqual([])
      expect(await candidatePaths(store, 'postgres')).toEqual(['memory/a.md'])
      expect(await store.counts()).toEqual([{ source: 'memory', files: 1, chunks: 1 }])
    })

    it('writes only the changed chunks of a file read again, and counts their terms in and out', async () => {
      const { store } = await space()
      await store.applyChanges(
        { replace: [file('memory/a.md', 1, ['redis cache notes', 'second line', 'third line'])] },
        STEPS,
      )
      await store.applyChanges(
        { replace: [file('memory/a.md', 2, ['redis cache notes', 'postgres line postgres', 'third line'])] },
        STEPS,
      )
      const stats = await store.keywordStats([term('redis'), term('second'), term('postgres'), term('line')])
      expect(stats).toMatchObject({ rows: 3, docFreqs: [1, 0, 1, 2] })
      const [hit] = await store.candidates({ terms: [term('postgres')], limit: 10, headingWeight: 2 })
      expect(hit?.bodyTerms).toBe(indexTokens('postgres line postgres').join(' '))
      expect(await candidatePaths(store, 'second')).toEqual([])
    })

    it('stores texts and terms as given, whatever quoting or array syntax they hold', async () => {
      const { store } = await space()
      const texts = ['say "hi" \\ {a,b} NULL', 'NULL', 'back\\slash "quote" null,']
      await store.applyChanges({ replace: [file('memory/q.md', 1, texts)] }, STEPS)
      const rows = await store.candidates({ terms: [term('null')], limit: 10, headingWeight: 2 })
      expect(rows.map((r) => r.bodyTerms).sort()).toEqual(texts.map((t) => indexTokens(t).join(' ')).sort())
      const read = [...(await store.chunkTexts(rows.map((r) => r.id))).values()]
      expect(read.map((r) => r.text).sort()).toEqual([...texts].sort())
      // Each text with the body terms it was stored with.
      for (const r of read) expect(r.bodyTerms).toBe(indexTokens(r.text).join(' '))
    })

    it('drops a change from a read older than the one it holds, for writes and deletions alike', async () => {
      const { store } = await space()
      await store.applyChanges({ replace: [file('memory/a.md', 5, ['newer text'])] }, STEPS)
      await store.applyChanges({ replace: [file('memory/a.md', 3, ['older text'])] }, STEPS)
      expect(await candidatePaths(store, 'older')).toEqual([])
      await store.applyChanges({ remove: [{ path: 'memory/a.md', readSeq: 4 }] }, STEPS)
      expect((await store.getFile('memory/a.md'))?.readSeq).toBe(5)
      await store.applyChanges({ remove: [{ path: 'memory/a.md', readSeq: 6 }] }, STEPS)
      expect(await store.getFile('memory/a.md')).toBeUndefined()
      // The deletion is remembered: a read older than it cannot bring the file back.
      await store.applyChanges({ replace: [file('memory/a.md', 5, ['newer text'])] }, STEPS)
      expect(await store.getFile('memory/a.md')).toBeUndefined()
      await store.applyChanges({ replace: [file('memory/a.md', 7, ['back again'])] }, STEPS)
      expect(await candidatePaths(store, 'back')).toEqual(['memory/a.md'])
    })

    it('applies a change that names a file more than once as its writes one after another', async () => {
      const { store } = await space()
      const b = file('memory/b.md', 6, ['bee text'])
      await store.applyChanges(
        {
          replace: [
            file('memory/a.md', 5, ['first text']),
            b,
            file('memory/a.md', 7, ['second text']),
            file('memory/c.md', 3, ['cee text']),
          ],
          touch: [{ ...b.record, readSeq: 8, mtimeMs: 1234.5 }],
          remove: [{ path: 'memory/c.md', readSeq: 2 }],
        },
        STEPS,
      )
      expect(await candidatePaths(store, 'first')).toEqual([])
      expect(await candidatePaths(store, 'second')).toEqual(['memory/a.md'])
      expect(await store.getFile('memory/b.md')).toMatchObject({ readSeq: 8, mtimeMs: 1234.5 })
      expect((await store.getFile('memory/c.md'))?.readSeq).toBe(3)
      // Each file's one row counted once: the first write to a.md was replaced, not added to.
      expect(await store.keywordStats([term('text'), term('first')])).toMatchObject({ rows: 3, docFreqs: [3, 0] })
      await store.applyChanges(
        {
          replace: [file('memory/a.md', 9, ['third text']), file('memory/e.md', 12, ['late text'])],
          remove: [
            { path: 'memory/a.md', readSeq: 10 },
            { path: 'memory/e.md', readSeq: 11 },
          ],
        },
        STEPS,
      )
      expect(await store.getFile('memory/a.md')).toBeUndefined()
      expect((await store.getFile('memory/e.md'))?.readSeq).toBe(12)
      expect(await candidatePaths(store, 'third')).toEqual([])
      expect(await store.keywordStats([term('text')])).toMatchObject({ rows: 3, docFreqs: [3] })
      // Files of the same text written together keep a row each, and lose only their own.
      await store.applyChanges(
        { replace: [file('memory/f.md', 13, ['twin text']), file('memory/g.md', 14, ['twin text'])] },
        STEPS,
      )
      await store.applyChanges({ remove: [{ path: 'memory/f.md', readSeq: 15 }] }, STEPS)
      expect(await candidatePaths(store, 'twin')).toEqual(['memory/g.md'])
      expect(await store.keywordStats([term('twin')])).toMatchObject({ rows: 4, docFreqs: [1] })
    })

    it('numbers reads after the highest number the index holds, across reopening', async () => {
      const under = await make()
      open.push(under)
      const first = await under.engine.openSpace(MAIN)
      const seq = await first.readSequence()
      const a = await seq.next()
      const b = await seq.next()
      expect(b).toBeGreaterThan(a)
      await first.applyChanges({ replace: [file('memory/a.md', b, ['text'])] }, STEPS)
      await first.close()
      const again = await under.engine.openSpace(MAIN)
      expect(again.fresh).toBe(false)
      expect(await (await again.readSequence()).next()).toBeGreaterThan(b)
      await again.close()
    })

    it('gives keyword candidates ranked by BM25, filtered, with the statistics ranking needs', async () => {
      const { store } = await space()
      await store.applyChanges(
        {
          replace: [
            file('memory/a.md', 1, ['redis redis cache eviction', 'unrelated words here']),
            file('memory/b.md', 2, ['redis mentioned once among many other words in this line']),
            file('MEMORY.md', 3, ['redis is our cache']),
            file('memory/c.md', 4, ['部署 模型 升级']),
          ],
        },
        STEPS,
      )
      const corpus = await store.keywordStats([term('redis'), term('cache'), term('absent')])
      expect(corpus.rows).toBe(5)
      expect(corpus.docFreqs).toEqual([3, 2, 0])
      expect(await store.keywordStats([term('redis'), term('absent')])).toEqual({
        rows: 5,
        docFreqs: [3, 0],
        partial: false,
      })
      expect(await store.keywordStats([])).toEqual({ rows: 5, docFreqs: [], partial: false })
      const all = await store.candidates({ terms: [term('redis')], limit: 10, headingWeight: 2 })
      expect(all.map((r) => r.path)).toEqual(['memory/a.md', 'MEMORY.md', 'memory/b.md'])
      expect(all[0]).toMatchObject({
        startLine: 1,
        endLine: 1,
        source: 'memory',
        bodyTerms: expect.stringContaining(term('redis')),
      })
      expect(all[0]!.tokenCount).toBe(all[0]!.bodyTerms.split(' ').length)
      expect(await candidatePaths(store, '模型升级')).toEqual(['memory/c.md'])
      const limited = await store.candidates({ terms: [term('redis')], limit: 1, headingWeight: 2 })
      expect(limited.map((r) => r.path)).toEqual(['memory/a.md'])
      const filtered = await store.candidates({
        terms: [term('redis')],
        limit: 10,
        headingWeight: 2,
        excludeMemoryFile: true,
        pathPrefix: 'memory/',
      })
      expect(filtered.map((r) => r.path)).toEqual(['memory/a.md', 'memory/b.md'])
      const newest = await store.newestMatches({ terms: [term('redis')], limit: 2, headingWeight: 2 })
      expect(newest).toHaveLength(2)
      expect(await store.candidates({ terms: [], limit: 10, headingWeight: 2 })).toEqual([])
      const texts = await store.chunkTexts(all.map((r) => r.id))
      expect([...texts.values()].map((t) => t.text)).toContain('redis is our cache')
      // An engine may read the texts with the candidates; the same rows either way.
      const withTexts = await store.candidates({ terms: [term('redis')], limit: 10, headingWeight: 2, texts: true })
      expect(withTexts.map(({ text: _text, ...head }) => head)).toEqual(all)
      for (const row of withTexts) if (row.text !== undefined) expect(row.text).toBe(texts.get(row.id)?.text)
      for (const row of all) expect(texts.get(row.id)?.bodyTerms).toBe(row.bodyTerms)
    })

    it('treats query terms as data, never as query syntax', async () => {
      const { store } = await space()
      await store.applyChanges({ replace: [file('memory/a.md', 1, ['plain words'])] }, STEPS)
      for (const term of ['"', 'a OR b', 'NEAR(x y)', "'; DROP TABLE files; --", '*', ':', '&|!']) {
        expect(await store.candidates({ terms: [term], limit: 5, headingWeight: 2 })).toEqual([])
      }
      expect(await candidatePaths(store, 'plain')).toEqual(['memory/a.md'])
    })

    it('keeps chunks without a vector pending until their vectors are stored, then finds them nearest first', async () => {
      const { store, vectors } = await space()
      expect(store.storesVectors()).toBe(vectors)
      if (!vectors) return
      await store.applyChanges(
        {
          replace: [
            file('memory/a.md', 1, [
              ['north', [1, 0, 0, 0]],
              ['east', [0, 1, 0, 0]],
            ]),
            file('memory/b.md', 2, ['no vector yet']),
          ],
        },
        STEPS,
      )
      const pending = await store.pendingVectors(10)
      expect(pending.map((p) => p.text)).toEqual(['no vector yet'])
      expect(await store.pendingVectorCount()).toBe(1)
      await store.putVectors(pending.map((p) => ({ ...p, vector: normalizeVector([0.9, 0.1, 0, 0], DIMS) })))
      expect(await store.pendingVectorCount()).toBe(0)
      const near = await store.nearest(normalizeVector([1, 0, 0, 0], DIMS), 2, {})
      expect(near.map((n) => n.path)).toEqual(['memory/a.md', 'memory/b.md'])
      expect(near[0]!.distance).toBeCloseTo(0, 5)
      expect(near[1]!.distance).toBeGreaterThan(near[0]!.distance)
      const onlyB = await store.nearest(normalizeVector([1, 0, 0, 0], DIMS), 5, { pathPrefix: 'memory/b' })
      expect(onlyB.map((n) => n.path)).toEqual(['memory/b.md'])
      await store.applyChanges({ remove: [{ path: 'memory/a.md', readSeq: 3 }] }, STEPS)
      expect((await store.nearest(normalizeVector([1, 0, 0, 0], DIMS), 5, {})).map((n) => n.path)).toEqual([
        'memory/b.md',
      ])
    })

    it('keeps to a time range: dated chunks in [after, before), undated ones unless datedOnly', async () => {
      const { store, vectors } = await space()
      await store.applyChanges(
        {
          replace: [
            file('MEMORY.md', 1, [['alpha undated', [1, 0, 0, 0]]]),
            file('memory/a.md', 2, [['alpha early', [0.9, 0.1, 0, 0]]], 100),
            file('memory/b.md', 3, ['alpha late'], 500),
          ],
        },
        STEPS,
      )
      const ranges: [DateRange, string[]][] = [
        [{ afterMs: 200, datedOnly: false }, ['MEMORY.md', 'memory/b.md']],
        [{ afterMs: 200, datedOnly: true }, ['memory/b.md']],
        [{ beforeMs: 500, datedOnly: true }, ['memory/a.md']],
        [{ afterMs: 100, beforeMs: 101, datedOnly: false }, ['MEMORY.md', 'memory/a.md']],
        [{ datedOnly: true }, ['memory/a.md', 'memory/b.md']],
      ]
      const alpha = [term('alpha')]
      for (const [dated, paths] of ranges) {
        const rows = await store.candidates({ terms: alpha, limit: 10, headingWeight: 2, dated })
        expect(rows.map((r) => r.path).sort(), JSON.stringify(dated)).toEqual(paths)
      }
      const heads = await store.candidates({ terms: alpha, limit: 10, headingWeight: 2 })
      expect(Object.fromEntries(heads.map((r) => [r.path, r.datedMs]))).toEqual({
        'MEMORY.md': null,
        'memory/a.md': 100,
        'memory/b.md': 500,
      })
      if (!vectors) return
      // b's vector arrives later (the embedding provider's path) and must carry b's date.
      const pending = await store.pendingVectors(10)
      await store.putVectors(pending.map((p) => ({ ...p, vector: normalizeVector([0.8, 0.2, 0, 0], DIMS) })))
      const query = normalizeVector([1, 0, 0, 0], DIMS)
      for (const [dated, paths] of ranges) {
        const near = await store.nearest(query, 5, { dated })
        expect(near.map((n) => n.path).sort(), JSON.stringify(dated)).toEqual(paths)
      }
      // Two scans merged (vec0): nearest first, at most k.
      const two = await store.nearest(query, 1, { dated: { afterMs: 200, datedOnly: false } })
      expect(two.map((n) => n.path)).toEqual(['MEMORY.md'])
    })

    it('keeps to entries: current facts unless superseded ones are asked for, origins, and each chunk’s entry', async () => {
      const { store, vectors } = await space()
      const entry = (status: 'active' | 'superseded', origin: 'owner' | 'agent' | null): ChunkEntry => ({
        status,
        observed: '2026-05-10',
        key: 'db-host',
        origin,
      })
      const change = (path: string, readSeq: number, text: string, v: number[], e: ChunkEntry | null): FileRows => {
        const made = file(path, readSeq, [])
        return { record: { ...made.record, chunkCount: 1 }, chunks: [chunk(text, 1, v, null, e)] }
      }
      await store.applyChanges(
        {
          replace: [
            change('memory/old.md', 1, 'delta host old', [1, 0, 0, 0], entry('superseded', 'owner')),
            change('memory/new.md', 2, 'delta host new', [0.9, 0.1, 0, 0], entry('active', 'agent')),
            change('memory/plain.md', 3, 'delta host plain', [0.8, 0.2, 0, 0], null),
          ],
        },
        STEPS,
      )
      const cases: [ChunkFilters, string[]][] = [
        [{}, ['memory/new.md', 'memory/plain.md']],
        [{ includeSuperseded: true }, ['memory/new.md', 'memory/old.md', 'memory/plain.md']],
        [{ origins: ['agent'] }, ['memory/new.md']],
        [{ origins: ['owner'] }, []],
        [{ origins: ['owner'], includeSuperseded: true }, ['memory/old.md']],
        [{ origins: ['owner', 'agent'], includeSuperseded: true }, ['memory/new.md', 'memory/old.md']],
      ]
      const delta = [term('delta')]
      for (const [filters, paths] of cases) {
        const rows = await store.candidates({ terms: delta, limit: 10, headingWeight: 2, ...filters })
        expect(rows.map((r) => r.path).sort(), JSON.stringify(filters)).toEqual(paths)
        const newest = await store.newestMatches({ terms: delta, limit: 10, headingWeight: 2, ...filters })
        expect(newest.map((r) => r.path).sort(), `newest ${JSON.stringify(filters)}`).toEqual(paths)
      }
      const all = await store.candidates({ terms: delta, limit: 10, headingWeight: 2, includeSuperseded: true })
      expect(Object.fromEntries(all.map((r) => [r.path, r.entry]))).toEqual({
        'memory/old.md': entry('superseded', 'owner'),
        'memory/new.md': entry('active', 'agent'),
        'memory/plain.md': null,
      })
      if (!vectors) return
      const query = normalizeVector([1, 0, 0, 0], DIMS)
      for (const [filters, paths] of cases) {
        const near = await store.nearest(query, 5, filters)
        expect(near.map((n) => n.path).sort(), `nearest ${JSON.stringify(filters)}`).toEqual(paths)
      }
      const nearest = await store.nearest(query, 5, { includeSuperseded: true })
      expect(nearest[0]).toMatchObject({ path: 'memory/old.md', entry: entry('superseded', 'owner') })
    })

    it('finds the current fact below many superseded ones that rank higher, by keyword and by vector', async () => {
      const { store, vectors } = await space()
      const old: ChunkEntry = { status: 'superseded', observed: null, key: 'motto', origin: null }
      const texts: [string, ChunkEntry | null, number[]][] = [
        ...Array.from({ length: 30 }, (_, i): [string, ChunkEntry, number[]] => [
          `echo echo echo old motto ${i}`,
          old,
          [1, 0.01 * i, 0, 0],
        ]),
        ['echo current motto', null, [0, 1, 0, 0]],
      ]
      const made = file('MEMORY.md', 1, [])
      await store.applyChanges(
        {
          replace: [
            {
              record: { ...made.record, lineCount: texts.length, chunkCount: texts.length },
              chunks: texts.map(([text, e, v], i) => chunk(text, i + 1, v, null, e)),
            },
          ],
        },
        STEPS,
      )
      const rows = await store.candidates({ terms: [term('echo')], limit: 2, headingWeight: 2 })
      expect(rows.map((r) => r.startLine)).toEqual([31])
      const all = await store.candidates({ terms: [term('echo')], limit: 2, headingWeight: 2, includeSuperseded: true })
      expect(all.map((r) => r.entry?.status)).toEqual(['superseded', 'superseded'])
      if (!vectors) return
      // The 30 superseded are nearer than twice the neighbours asked for: asked again, filtered.
      const near = await store.nearest(normalizeVector([1, 0, 0, 0], DIMS), 2, {})
      expect(near.map((n) => n.startLine)).toEqual([31])
    })

    it('finds active entries by text hash and by key, and follows an entry superseded in place', async () => {
      const { store } = await space()
      const keyed = (status: 'active' | 'superseded'): ChunkEntry => ({
        status,
        observed: null,
        key: 'db',
        origin: null,
      })
      const write = async (readSeq: number, status: 'active' | 'superseded') => {
        const made = file('MEMORY.md', readSeq, [])
        const chunks = [
          { ...chunk('db is alpha', 2, undefined, null, keyed(status)), entryHash: 'h-alpha' },
          { ...chunk('db is beta', 4, undefined, null, keyed('active')), entryHash: 'h-beta' },
          chunk('loose text', 6),
        ]
        await store.applyChanges({ replace: [{ record: { ...made.record, chunkCount: 3 }, chunks }] }, STEPS)
      }
      await write(1, 'active')
      expect(await store.findEntries({ hashes: ['h-alpha', 'h-none'] })).toEqual([
        { path: 'MEMORY.md', startLine: 2, endLine: 2, hash: 'h-alpha' },
      ])
      expect(await store.findEntries({ hashes: ['h-alpha', 'h-beta'] })).toHaveLength(2)
      expect(await store.findEntries({ key: 'db' })).toEqual([
        { path: 'MEMORY.md', startLine: 2, endLine: 4, hash: null },
      ])
      expect(await store.findEntries({ hashes: ['h-none'] })).toEqual([])
      // The same lines and text, now superseded: the row says so (it is not kept as it was).
      await write(2, 'superseded')
      expect(await store.findEntries({ hashes: ['h-alpha'] })).toEqual([])
      expect(await store.findEntries({ key: 'db' })).toEqual([
        { path: 'MEMORY.md', startLine: 4, endLine: 4, hash: null },
      ])
      const rows = await store.candidates({ terms: [term('alpha')], limit: 5, headingWeight: 2 })
      expect(rows).toEqual([])
    })

    it('rebuilds beside the live index: the live one serves until commit, then the new one does', async () => {
      const { store } = await space()
      await store.applyChanges({ replace: [file('memory/old.md', 1, ['legacy content'])] }, STEPS)
      const next = await store.beginRebuild()
      await next.applyChanges({ replace: [file('memory/new.md', 2, ['fresh content'])] }, STEPS)
      await next.setMeta('identity', 'rebuilt')
      await next.finish(STEPS)
      expect(await candidatePaths(store, 'legacy')).toEqual(['memory/old.md'])
      expect(await candidatePaths(store, 'fresh')).toEqual([])
      let detached = false
      await next.commit({
        signal: new AbortController().signal,
        readers: { suspend: async () => undefined, resume: () => undefined },
        detach: () => (detached = true),
        writes: { idle: () => true, whenIdle: async () => undefined },
      })
      expect(detached).toBe(true)
      expect(await candidatePaths(store, 'legacy')).toEqual([])
      expect(await candidatePaths(store, 'fresh')).toEqual(['memory/new.md'])
      expect(await store.getMeta('identity')).toBe('rebuilt')
      expect((await store.listFiles()).map((f) => f.path)).toEqual(['memory/new.md'])
    })

    it('aborts a rebuild leaving the live index serving as it was', async () => {
      const { store } = await space()
      await store.applyChanges({ replace: [file('memory/old.md', 1, ['legacy content'])] }, STEPS)
      await store.setMeta('identity', 'live')
      const next = await store.beginRebuild()
      await next.applyChanges({ replace: [file('memory/new.md', 2, ['fresh content'])] }, STEPS)
      await next.setMeta('identity', 'rebuilt')
      await next.abort()
      expect(await candidatePaths(store, 'legacy')).toEqual(['memory/old.md'])
      expect(await candidatePaths(store, 'fresh')).toEqual([])
      expect(await store.getMeta('identity')).toBe('live')
      // A new rebuild starts from nothing.
      const again = await store.beginRebuild()
      expect(await again.listFiles()).toEqual([])
      await again.abort()
    })

    it('keeps spaces apart and peeks at a closed one without opening it', async () => {
      const under = await make()
      open.push(under)
      const team = await under.engine.openSpace({ kind: 'team' })
      const alice = await under.engine.openSpace({ kind: 'agent', id: 'alice' })
      await team.applyChanges({ replace: [file('memory/t.md', 1, ['team only', 'two'])] }, STEPS)
      await alice.applyChanges({ replace: [file('memory/a.md', 1, ['alice only'])] }, STEPS)
      expect(await candidatePaths(team, 'alice')).toEqual([])
      expect(await candidatePaths(alice, 'team')).toEqual([])
      await team.close()
      expect(await under.engine.peekCounts({ kind: 'team' })).toEqual({ files: 1, chunks: 2 })
      expect(await under.engine.peekCounts({ kind: 'agent', id: 'nobody' })).toEqual({ files: 0, chunks: 0 })
      await alice.close()
    })

    it("keeps a user's space apart from its agent's and another user's, and drops it whole", async () => {
      const under = await make()
      open.push(under)
      const key = { kind: 'user', agent: 'ops', user: 'alice' } as const
      const agent = await under.engine.openSpace({ kind: 'agent', id: 'ops' })
      const alice = await under.engine.openSpace(key)
      const bob = await under.engine.openSpace({ kind: 'user', agent: 'ops', user: 'bob' })
      await agent.applyChanges({ replace: [file('memory/s.md', 1, ['shared words'])] }, STEPS)
      await alice.applyChanges({ replace: [file('memory/a.md', 1, ['alice words', 'more words'])] }, STEPS)
      await bob.applyChanges({ replace: [file('memory/b.md', 1, ['bob words'])] }, STEPS)
      expect(await candidatePaths(agent, 'alice')).toEqual([])
      expect(await candidatePaths(bob, 'alice')).toEqual([])
      expect(await candidatePaths(alice, 'alice')).toEqual(['memory/a.md'])
      await alice.close()
      expect(await under.engine.peekCounts(key)).toEqual({ files: 1, chunks: 2 })
      await under.engine.dropSpace(key)
      expect(await under.engine.peekCounts(key)).toEqual({ files: 0, chunks: 0 })
      // Opened again, it is a new, empty index; the others are untouched.
      const again = await under.engine.openSpace(key)
      expect(again.fresh).toBe(true)
      expect(await candidatePaths(again, 'alice')).toEqual([])
      expect(await candidatePaths(bob, 'bob')).toEqual(['memory/b.md'])
      expect(await candidatePaths(agent, 'shared')).toEqual(['memory/s.md'])
      await Promise.all([again.close(), bob.close(), agent.close()])
    })

    it('keeps the search log: lists by agent, user, time and results, takes feedback, prunes by age and count', async () => {
      const under = await make()
      open.push(under)
      const searches = under.engine.openSearchLog()
      const entry = (n: number, agent: string, user: string | null, results: number) => ({
        requestId: `r${n}`,
        atMs: 1000 * n,
        agent,
        user,
        // Quotes, a backslash, a NUL-free control character and Chinese: stored as given.
        query: `query ${n}: it's "quoted" \\ back\tslash 记忆`,
        mode: 'keyword',
        results,
        bestScore: results > 0 ? 0.5 : null,
        abstained: false,
        latencyMs: 1.5,
        degraded: n === 2 ? ['vector', 'rerank'] : [],
      })
      await searches.append([entry(1, 'ops', null, 1), entry(2, 'ops', 'alice', 0), entry(3, 'coder', null, 2)])
      await searches.append([entry(4, 'ops', null, 0)])
      const ids = async (q: Parameters<typeof searches.list>[0]) => (await searches.list(q)).map((r) => r.requestId)
      expect(await ids({ limit: 10 })).toEqual(['r4', 'r3', 'r2', 'r1'])
      expect(await ids({ agent: 'ops', user: null, limit: 10 })).toEqual(['r4', 'r1'])
      expect(await ids({ agent: 'ops', user: 'alice', limit: 10 })).toEqual(['r2'])
      expect(await ids({ agent: 'ops', noResults: true, limit: 10 })).toEqual(['r4', 'r2'])
      expect(await ids({ sinceMs: 3000, limit: 1 })).toEqual(['r4'])
      expect((await searches.list({ agent: 'ops', user: 'alice', limit: 1 }))[0]).toEqual({
        ...entry(2, 'ops', 'alice', 0),
        feedback: null,
      })
      // Feedback needs the same agent and user.
      const note = { useful: false, note: 'missed it', atMs: 9000 }
      expect(await searches.feedback({ requestId: 'r2', agent: 'ops', user: null, ...note })).toBe(false)
      expect(await searches.feedback({ requestId: 'r2', agent: 'coder', user: 'alice', ...note })).toBe(false)
      expect(await searches.feedback({ requestId: 'r2', agent: 'ops', user: 'alice', ...note })).toBe(true)
      expect((await searches.list({ user: 'alice', limit: 1 }))[0]?.feedback).toEqual({
        useful: false,
        note: 'missed it',
        atMs: 9000,
      })
      // Before 2 s go by age; then ops keeps its newest one.
      expect(await searches.prune({ beforeMs: 2000, maxPerAgent: 1 })).toBe(2)
      expect(await ids({ limit: 10 })).toEqual(['r4', 'r3'])
      // A big prune (in steps, on SQLite) keeps exactly the newest of the agent.
      await searches.append(
        Array.from({ length: 4500 }, (_, i) => ({ ...entry(i, 'bulk', null, 1), atMs: 10_000 + i })),
      )
      expect(await searches.prune({ beforeMs: 0, maxPerAgent: 100 })).toBe(4400)
      const kept = await searches.list({ agent: 'bulk', limit: 1000 })
      expect([kept.length, kept[0]?.atMs, kept.at(-1)?.atMs]).toEqual([100, 14_499, 14_400])
      expect(await ids({ agent: 'ops', limit: 10 })).toEqual(['r4'])
      await searches.close()
    })

    it('caches embeddings by provider, model and hash, bounded by least recent use', async () => {
      const under = await make()
      open.push(under)
      let now = 1000
      const cache = under.engine.openEmbeddingCache({ maxEntries: 3, now: () => now })
      const v = (x: number) => Float32Array.from([x, x])
      for (const [hash, x] of [
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ] as const) {
        await cache.put('p', 'm', [{ hash, vector: v(x) }])
        now += 100
      }
      now = 2000
      expect([...(await cache.get('p', 'm', ['a'])).keys()]).toEqual(['a'])
      expect((await cache.get('p', 'other-model', ['a'])).size).toBe(0)
      now = 3000
      await cache.put('p', 'm', [{ hash: 'd', vector: v(4) }])
      expect(await cache.size()).toBe(3)
      expect([...(await cache.get('p', 'm', ['a', 'b', 'c', 'd'])).keys()].sort()).toEqual(['a', 'c', 'd'])
      expect(Array.from((await cache.get('p', 'm', ['d'])).get('d') as Float32Array)).toEqual([4, 4])
      await cache.close()
    })
  })
}
