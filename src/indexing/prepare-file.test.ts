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

    it('gives chunks the entry hashes a whole preparation gives, scanning entries from the last flush on', async () => {
      const rel = 'memory/2026-03-02.md'
      const key = { prepare: newCache(), key: '/entries' }
      const flush = (i: number, lines: number, notes: string) =>
        `## 10:${String(i % 60).padStart(2, '0')}:00 · agent a\n<!-- mnemo:flush id=f${i} lines=${lines} -->\n${notes}\n`
      const meta = '<!-- observed: 2026-03-02 | status: active | key: db -->'
      const base = Array.from({ length: 30 }, (_, i) => flush(i, 1, `- note ${i} 笔记 ${i}`)).join('')
      // Flush 30 says one line follows its marker; said two, the plain line after it is its.
      const marked = (lines: number) => `${base}${flush(30, lines, '- note 30')}plain line after it\n`
      const steps = [
        marked(1),
        `${marked(1)}${flush(31, 1, '- note 31')}`,
        // Only flush 30's marker differs, which the chunker reads blanked: its entry grew.
        `${marked(2)}${flush(31, 1, '- note 31')}`,
        `${marked(2)}${flush(31, 1, '- note 31')}${meta}\nthe database is PostgreSQL\n`,
        `${marked(2)}${flush(31, 1, '- note 31')}${meta}\nthe database is PostgreSQL\nand its version 15\n`,
        // A heading inside a fence closes nothing.
        `${marked(2)}${flush(31, 1, '- note 31')}${meta}\nthe database is PostgreSQL\nand its version 15\n\`\`\`\n## 11:00:00 · agent a\n`,
        `${marked(2)}${flush(31, 1, '- note 31')}${meta}\nthe database is PostgreSQL\nand its version 15\n\`\`\`\n## 11:00:00 · agent a\n\`\`\`\n${flush(32, 1, '- note 32')}`,
      ]
      // Edited after the last flush's heading: the chunker starts again from the first line.
      steps.push((steps.at(-1) as string).replace('- note 32', '- note 32, edited'))
      for (const [i, text] of steps.entries()) {
        const prepared = await prepareFile(file(rel, text, 0), chunking, counting(), key)
        expect(prepared, `step ${i}`).toEqual(await prepareFile(file(rel, text, 0), chunking, counting()))
        expect(prepared.chunks.filter((c) => c.entryHash).length).toBeGreaterThan(30)
      }
      // The next preparation scans from the last flush's heading on.
      const lines = (steps.at(-1) as string).split('\n')
      expect(key.prepare.files.get('/entries')?.entryScan?.line).toBe(lines.lastIndexOf('## 10:32:00 · agent a') + 1)
    })

    it('scans entries whole when the heading it would scan from is no heading any more', async () => {
      const rel = 'memory/2026-03-03.md'
      const key = { prepare: newCache(), key: '/gone' }
      const meta = '<!-- observed: 2026-03-03 | status: active -->'
      // The heading, the last line, is replaced: the entry above runs on into its line.
      for (const text of [`${meta}\n## 10:00:00 · agent a`, `${meta}\nthe database is PostgreSQL\n`]) {
        const prepared = await prepareFile(file(rel, text, 0), chunking, counting(), key)
        expect(prepared).toEqual(await prepareFile(file(rel, text, 0), chunking, counting()))
      }
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
