import { describe, expect, it } from 'vitest'
import { splitLines } from '../text/lines.js'
import { estimateTokens } from '../text/token-estimate.js'
import { chunkMarkdown, chunkMarkdownFrom, type Chunk } from './chunker.js'

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

/**
 * A markdown text of `n` lines mixing headings, blanks, long lines, CRLF and code fences,
 * which may stay open to the end (seeded).
 */
function markdownLines(n: number, seed: number): string[] {
  let x = seed
  const next = (m: number) => {
    x = (x * 1103515245 + 12345) % 2147483648
    return x % m
  }
  const kinds = [
    (i: number) => `## ${String(i % 24).padStart(2, '0')}:00:00`,
    (i: number) => `# Part ${i}`,
    () => '',
    () => '```',
    (i: number) => `\`\`\`\ncode ${i}\n\`\`\``,
    (i: number) => sentence(i),
    (i: number) => `- ${sentence(i)} ${sentence(i + 1)}`,
    (i: number) => `${'很长的一行记录。'.repeat(12)}${i}`,
    (i: number) => `${sentence(i)}\r`,
    // Entries (issue 31): chunks never cross a change of status, key or origin.
    (i: number) => `<!-- observed: 2026-05-1${i % 10} | status: superseded | key: k${i % 3} -->`,
    () => '<!-- status: active | origin: agent -->',
  ]
  return Array.from({ length: n }, (_, i) => (kinds[next(kinds.length)] as (i: number) => string)(i))
}

describe('chunkMarkdownFrom', () => {
  it('chunks a text that grew by lines from the checkpoint of its start exactly as the whole text', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const lines = markdownLines(60, seed)
      const whole = `${lines.join('\n')}\n`
      const expected = await chunkMarkdown(whole, opts)
      for (let cut = 0; cut <= lines.length; cut += 3) {
        // The start ends with a newline, or not (its last line then grows with the append).
        for (const start of [`${lines.slice(0, cut).join('\n')}\n`, lines.slice(0, cut).join('\n')]) {
          if (!whole.startsWith(start)) continue
          const first = await chunkMarkdownFrom(start, null, opts)
          const grown = await chunkMarkdownFrom(whole, first.checkpoint, opts)
          const kept = [...first.chunks].slice(0, grown.skipped)
          expect(grown.skipped).toBe(first.checkpoint.chunks)
          expect([...kept, ...grown.chunks], `seed ${seed}, cut ${cut}`).toEqual(expected)
        }
      }
    }
  })

  it.each([
    ['mixed markdown', markdownLines(80, 7).filter((line) => line !== '```')],
    // Overflowing paragraphs, cut at the blank lines between them (soft cuts).
    ['paragraphs', Array.from({ length: 60 }, (_, i) => (i % 6 === 5 ? '' : sentence(i)))],
  ])('goes on from checkpoint to checkpoint as a text grows line by line: %s', async (_, lines) => {
    const made: Chunk[] = []
    let from = (await chunkMarkdownFrom('', null, opts)).checkpoint
    for (let n = 1; n <= lines.length; n++) {
      const text = `${lines.slice(0, n).join('\n')}\n`
      const step = await chunkMarkdownFrom(text, from, opts)
      expect(step.skipped).toBe(from.chunks)
      made.length = step.skipped
      made.push(...step.chunks)
      expect(made, `after line ${n}`).toEqual(await chunkMarkdown(text, opts))
      from = step.checkpoint
    }
    expect(from.chunks).toBeGreaterThan(5)
  })

  it("starts over when the text no longer starts with the checkpoint's", async () => {
    const first = await chunkMarkdownFrom('# A\none\n# B\ntwo\n', null, opts)
    const edited = '# A\nONE\n# B\ntwo\nthree\n'
    const again = await chunkMarkdownFrom(edited, first.checkpoint, opts)
    expect(again.skipped).toBe(0)
    expect(again.chunks).toEqual(await chunkMarkdown(edited, opts))
  })

  it('takes the checkpoint after the last newline, before a last line that may still grow', async () => {
    const { checkpoint } = await chunkMarkdownFrom('# A\none\ntwo', null, opts)
    expect(checkpoint).toMatchObject({ prefix: '# A\none\n', lines: 2 })
    const grown = await chunkMarkdownFrom('# A\none\ntwo and more\n', checkpoint, opts)
    expect(grown.chunks).toEqual(await chunkMarkdown('# A\none\ntwo and more\n', opts))
  })
})

describe('entries', () => {
  const OPENCLAW = [
    '# Preferences',
    '',
    '<!-- observed: 2026-05-10 | status: superseded -->',
    '- Prefer detailed explanations for every code change.',
    '',
    '<!-- observed: 2026-07-27 | status: active -->',
    '- Prefer concise implementation summaries unless more detail is requested.',
    '',
  ].join('\n')

  it('cuts at a change of status, and leaves the comment lines out of the chunk texts', async () => {
    const chunks = await chunkMarkdown(OPENCLAW, opts)
    expect(chunks.map((c) => [c.startLine, c.endLine, c.entry])).toEqual([
      [1, 4, { status: 'superseded', observed: '2026-05-10', key: null, origin: null }],
      [7, 7, { status: 'active', observed: '2026-07-27', key: null, origin: null }],
    ])
    expect(chunks[0]?.text).toBe('# Preferences\n\n\n- Prefer detailed explanations for every code change.')
    expect(chunks.every((c) => !c.text.includes('<!--'))).toBe(true)
    expectExactLines(OPENCLAW.replaceAll(/^<!--.*-->$/gm, ''), chunks)
  })

  it('gives every entry chunks of its own, even entries of one status, key and origin', async () => {
    const text = ['<!-- observed: 2026-01-01 -->', '- one', '<!-- observed: 2026-02-01 -->', '- two', ''].join('\n')
    const chunks = await chunkMarkdown(text, opts)
    expect(chunks.map((c) => [c.startLine, c.endLine, c.entry?.observed])).toEqual([
      [2, 2, '2026-01-01'],
      [4, 4, '2026-02-01'],
    ])
  })

  it('ends an entry at a heading, and carries no overlap into another class', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `- note ${i}`)
    const text = [
      '<!-- status: superseded | key: db -->',
      ...long,
      '<!-- status: active | key: db -->',
      '- new db host',
      '## 10:00:00',
      '- after the heading',
      '',
    ].join('\n')
    const chunks = await chunkMarkdown(text, opts)
    const classes = chunks.map((c) => c.entry?.status ?? null)
    expect(classes.slice(0, -2).every((s) => s === 'superseded')).toBe(true)
    expect(chunks.length).toBeGreaterThan(3)
    const active = chunks.at(-2) as Chunk
    expect([active.text, active.entry]).toEqual([
      '- new db host',
      { status: 'active', observed: null, key: 'db', origin: null },
    ])
    expect(chunks.at(-1)).toMatchObject({ text: '## 10:00:00\n- after the heading', entry: null })
    // Overlap within the superseded entry, none into the active one.
    expect(chunks[1]?.startLine).toBeLessThanOrEqual(chunks[0]?.endLine ?? 0)
  })

  it('reads a malformed comment as text and says where, and leaves comments in fences alone', async () => {
    const text = ['<!-- status: maybe -->', '- a note', '```', '<!-- status: superseded -->', '```', ''].join('\n')
    const made = await chunkMarkdownFrom(text, null, opts)
    expect(made.malformed).toEqual([{ line: 1, reason: expect.stringMatching(/status "maybe"/) }])
    expect(made.chunks.map((c) => c.entry)).toEqual([null])
    expect(made.chunks[0]?.text).toContain('<!-- status: maybe -->')
    expect(made.chunks[0]?.text).toContain('<!-- status: superseded -->')
  })

  it('chunks a text without metadata exactly as before: every entry null', async () => {
    const text = `${markdownLines(80, 11)
      .filter((l) => !l.includes('<!--'))
      .join('\n')}\n`
    const chunks = await chunkMarkdown(text, opts)
    expect(chunks.every((c) => c.entry === null)).toBe(true)
    expectExactLines(text, chunks)
  })
})
