import { describe, expect, it } from 'vitest'
import { splitLines } from '../text/lines.js'
import { estimateTokens } from '../text/token-estimate.js'
import { chunkMarkdown, type Chunk } from './chunker.js'

const opts = { maxTokens: 40, overlapTokens: 8 }

/**
 * Every chunk is exactly its lines — its first and last line may be a piece of an over-long
 * file line — and every non-blank line is covered.
 */
function expectExactLines(text: string, chunks: Chunk[]): void {
  const lines = splitLines(text)
  const covered = new Set<number>()
  for (const c of chunks) {
    const own = c.text.split('\n')
    const file = lines.slice(c.startLine - 1, c.endLine)
    expect(own).toHaveLength(file.length)
    own.forEach((line, i) => {
      const edge = i === 0 || i === own.length - 1
      if (edge) expect(file[i]).toContain(line)
      else expect(line).toBe(file[i])
    })
    for (let l = c.startLine; l <= c.endLine; l++) covered.add(l)
  }
  lines.forEach((line, i) => {
    if (line.trim() !== '') expect(covered.has(i + 1), `line ${i + 1} covered`).toBe(true)
  })
}

const sentence = (i: number) => `Line ${i} tells something about topic ${i}.`

describe('chunkMarkdown', () => {
  it('returns nothing for empty or blank text', async () => {
    expect(await chunkMarkdown('', opts)).toEqual([])
    expect(await chunkMarkdown('\n\n  \n', opts)).toEqual([])
  })

  it('keeps a small document in one chunk with exact 1-based lines, trimming blank edges', async () => {
    const text = '\nfirst line\nsecond line\n\n'
    const [chunk, ...rest] = await chunkMarkdown(text, opts)
    expect(rest).toEqual([])
    expect(chunk).toMatchObject({ startLine: 2, endLine: 3, text: 'first line\nsecond line', headings: [] })
  })

  it('starts a chunk at each heading and records the enclosing headings', async () => {
    const text = '# Project\nintro text\n## Setup\nsetup text\n### Details\ndetail text\n## Usage\nusage text'
    const chunks = await chunkMarkdown(text, opts)
    expect(chunks.map((c) => [c.startLine, c.endLine, c.headings])).toEqual([
      [1, 2, ['Project']],
      [3, 4, ['Project', 'Setup']],
      [5, 6, ['Project', 'Setup', 'Details']],
      [7, 8, ['Project', 'Usage']],
    ])
  })

  it('keeps headings with no text of their own together with the section below', async () => {
    const text = '# 2023-05-08\n\n## Session 1\n\n- hello there'
    expect((await chunkMarkdown(text, opts)).map((c) => [c.startLine, c.endLine, c.headings])).toEqual([
      [1, 5, ['2023-05-08', 'Session 1']],
    ])
  })

  it('does not treat # lines inside a code fence as headings', async () => {
    const text = '## Script\n```sh\n# install\nnpm ci\n```\nafter'
    const chunks = await chunkMarkdown(text, opts)
    expect(chunks).toHaveLength(1)
    expect(chunks[0]?.headings).toEqual(['Script'])
  })

  it('splits a long section into chunks within budget that overlap by at most overlapTokens', async () => {
    const text = Array.from({ length: 30 }, (_, i) => sentence(i + 1)).join('\n')
    const chunks = await chunkMarkdown(text, opts)
    expect(chunks.length).toBeGreaterThan(3)
    expectExactLines(text, chunks)
    for (const c of chunks) expect(c.tokens).toBeLessThanOrEqual(opts.maxTokens)
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1] as Chunk
      const cur = chunks[i] as Chunk
      expect(cur.startLine).toBeLessThanOrEqual(prev.endLine + 1)
      expect(cur.startLine).toBeGreaterThan(prev.startLine)
      const shared = splitLines(text)
        .slice(cur.startLine - 1, prev.endLine)
        .join('\n')
      if (cur.startLine <= prev.endLine) expect(estimateTokens(shared)).toBeLessThanOrEqual(opts.overlapTokens + 2)
    }
  })

  it('prefers cutting at a blank line or before a code fence over splitting the fence', async () => {
    const fence = ['```ts', 'const a = 1', 'const b = 2', 'const c = 3', '```']
    const text = [sentence(1), sentence(2), '', ...fence, sentence(3)].join('\n')
    const chunks = await chunkMarkdown(text, opts)
    expectExactLines(text, chunks)
    const fenceStart = 4
    const fenceEnd = 8
    const splitsFence = chunks.some((c) => c.endLine >= fenceStart && c.endLine < fenceEnd)
    expect(splitsFence).toBe(false)
  })

  it('splits a code fence only when the fence alone exceeds the budget', async () => {
    const body = Array.from({ length: 30 }, (_, i) => `const value${i} = computeSomething(${i})`)
    const text = ['```ts', ...body, '```'].join('\n')
    const chunks = await chunkMarkdown(text, opts)
    expect(chunks.length).toBeGreaterThan(1)
    expectExactLines(text, chunks)
  })

  it('cuts one over-long line into overlapping pieces that all carry its line number', async () => {
    const long = '这是一个很长的段落。'.repeat(30)
    const text = `## 标题\n${long}\n结尾`
    const chunks = await chunkMarkdown(text, opts)
    const pieces = chunks.filter((c) => c.startLine === 2 && c.endLine === 2)
    expect(pieces.length).toBeGreaterThan(3)
    for (const p of pieces) {
      expect(long).toContain(p.text)
      expect(p.tokens).toBeLessThanOrEqual(opts.maxTokens)
    }
    expectExactLines(text, chunks)
  })

  it('sizes Chinese text by characters, so a Chinese chunk holds about maxTokens characters', async () => {
    const text = Array.from({ length: 20 }, (_, i) => `第${i}行记录了一些关于项目进展的内容。`).join('\n')
    const chunks = await chunkMarkdown(text, { maxTokens: 100, overlapTokens: 10 })
    for (const c of chunks) expect(estimateTokens(c.text)).toBeLessThanOrEqual(100)
    expect(chunks.length).toBeGreaterThanOrEqual(4)
    expectExactLines(text, chunks)
  })

  it('handles CRLF line endings with the same line numbers', async () => {
    const unix = await chunkMarkdown('# A\none\n# B\ntwo\n', opts)
    const dos = await chunkMarkdown('# A\r\none\r\n# B\r\ntwo\r\n', opts)
    expect(dos).toEqual(unix)
  })
})
