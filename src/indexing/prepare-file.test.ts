import { describe, expect, it } from 'vitest'
import { createPrepareCache, prepareFile, type FileInput } from './prepare-file.js'

describe('prepareFile', () => {
  it('offers the event loop a turn after every piece of a huge single-line file and every chunk', async () => {
    const words = ['alpha', 'beta', '模型', '升级', 'qwen-max', 'POSTGRES_URL', 'deploy', '部署']
    const parts: string[] = []
    for (let n = 0; parts.length < 200_000; n++) parts.push(words[n % words.length] as string)
    const text = parts.join(' ')
    // Chunking one long line used to hold the loop for seconds: each piece of the line (one
    // chunk each) must be followed by a chance to yield, in the chunker and in the analysis;
    // when a turn is taken is the slicer's business (shared/async.ts: after 8 ms of work).
    // Counting the offers keeps this test free of wall-clock timing.
    let offers = 0
    const prepared = await prepareFile(
      { rel: 'memory/huge.md', text, sha256: 'x', sizeBytes: text.length, mtimeMs: 0, indexedAtMs: 0, readSeq: 1 },
      { maxTokens: 400, overlapTokens: 80 },
      { maybeYield: async () => void offers++ },
    )
    expect(prepared.chunks.length).toBeGreaterThan(500)
    expect(prepared.chunks.every((c) => c.startLine === 1 && c.endLine === 1)).toBe(true)
    expect(offers).toBeGreaterThanOrEqual(2 * prepared.chunks.length)
  })

  describe('with a cache, a file that grew at its end', () => {
    const chunking = { maxTokens: 60, overlapTokens: 10 }
    const entry = (i: number) =>
      `## 09:${String(i % 60).padStart(2, '0')}:00\n- decided to cache flush ${i} 缓存 ${i}\n`
    const day = (n: number) => Array.from({ length: n }, (_, i) => entry(i)).join('\n')
    const file = (rel: string, text: string, mtimeMs: number): FileInput => ({
      rel,
      text,
      sha256: 'x',
      sizeBytes: text.length,
      mtimeMs,
      indexedAtMs: 0,
      readSeq: 1,
    })
    const counting = () => {
      const slicer = { offers: 0, maybeYield: async () => void slicer.offers++ }
      return slicer
    }
    const newCache = () => createPrepareCache({ chunks: 1_000, termChars: 1_000_000, files: 4, fileChars: 1_000_000 })

    it.each([
      ['a day file', 'memory/2026-03-01.md'],
      // Dated by its modification time: the chunks it keeps take the new one.
      ['a note dated by its mtime', 'memory/notes/cache.md'],
    ])('%s is prepared from its last checkpoint, with the rows a whole preparation makes', async (_, rel) => {
      const cache = { prepare: newCache(), key: `/ws/${rel}` }
      await prepareFile(file(rel, day(200), 1_000), chunking, counting(), cache)
      const fromCheckpoint = counting()
      const grown = await prepareFile(file(rel, day(203), 2_000), chunking, fromCheckpoint, cache)
      const whole = counting()
      expect(grown).toEqual(await prepareFile(file(rel, day(203), 2_000), chunking, whole))
      expect(grown.chunks.length).toBeGreaterThan(100)
      // Lines and chunks read: those of the three new entries, not the two hundred before.
      expect(fromCheckpoint.offers).toBeLessThan(whole.offers / 20)
    })

    it('keeps no checkpoint of a file longer than a quarter of the bound', async () => {
      const cache = createPrepareCache({ chunks: 1_000, termChars: 1_000_000, files: 4, fileChars: 4 * 1_000 })
      const rel = 'memory/2026-03-01.md'
      const key = { prepare: cache, key: '/big' }
      await prepareFile(file(rel, day(10), 0), chunking, counting(), key)
      expect(cache.files.size).toBe(1)
      await prepareFile(file(rel, day(40), 0), chunking, counting(), key)
      expect(day(40).length).toBeGreaterThan(1_000)
      expect(cache.files.size).toBe(0)
    })

    it('is prepared whole again when its start changed, or under another key', async () => {
      const cache = newCache()
      const rel = 'memory/2026-03-01.md'
      await prepareFile(file(rel, day(50), 0), chunking, counting(), { prepare: cache, key: '/a' })
      const edited = `# Edited\n${day(51)}`
      const again = counting()
      const prepared = await prepareFile(file(rel, edited, 0), chunking, again, { prepare: cache, key: '/a' })
      expect(prepared).toEqual(await prepareFile(file(rel, edited, 0), chunking, counting()))
      const other = counting()
      await prepareFile(file(rel, day(51), 0), chunking, other, { prepare: cache, key: '/b' })
      expect(Math.min(again.offers, other.offers)).toBeGreaterThan(100)
    })
  })
})
