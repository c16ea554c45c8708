import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sha256 } from '../domain/hashing.js'
import { NEVER_YIELD } from './chunker.js'
import { createPrepareCache, keepPrepared, prepareFile, type FileInput } from './prepare-file.js'
import { readAndPrepare, THERE_MAX_CHARS, type ReadThereInput } from './read-there.js'
import { transcriptText } from './transcript.js'

const chunking = { maxTokens: 60, overlapTokens: 10 }
const entry = (i: number) => `## 10:${String(i % 60).padStart(2, '0')}\n- 部署 canary ${i} to staging\n`
const day = (n: number) => Array.from({ length: n }, (_, i) => entry(i)).join('\n')

let root: string
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-read-there-'))
  fs.mkdirSync(path.join(root, 'memory'))
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

const inputOf = (rel: string, over: Partial<ReadThereInput> = {}): ReadThereInput => ({
  root,
  path: rel,
  maxBytes: 10 * 1024 * 1024,
  unchangedIf: null,
  file: { rel, mtimeMs: 5, indexedAtMs: 7, readSeq: 3, source: rel.startsWith('sessions/') ? 'sessions' : 'memory' },
  chunking,
  ...over,
})
/** The same file as the main thread prepares it from its text. */
const here = (rel: string, text: string, bytes: Buffer): FileInput => ({
  rel,
  text,
  sha256: sha256(bytes),
  sizeBytes: bytes.length,
  mtimeMs: 5,
  indexedAtMs: 7,
  readSeq: 3,
  source: rel.startsWith('sessions/') ? 'sessions' : 'memory',
})
const put = (rel: string, data: string | Buffer) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), data)
  return fs.readFileSync(path.join(root, rel))
}

describe('readAndPrepare', () => {
  it('reads a file and prepares the rows the main thread prepares from its text, a BOM and CRLF included', async () => {
    const text = `# Plan\r\n${day(40).replaceAll('\n', '\r\n')}`
    const bytes = put('memory/2026-04-01.md', `\uFEFF${text}`)
    const got = await readAndPrepare(inputOf('memory/2026-04-01.md'), NEVER_YIELD)
    if (got.kind !== 'prepared') throw new Error(`prepared, not ${got.kind}`)
    expect(got.sha256).toBe(sha256(bytes))
    expect(got.sizeBytes).toBe(bytes.length)
    expect(got.malformedLines).toBe(0)
    const expected = await prepareFile(here('memory/2026-04-01.md', text, bytes), chunking, NEVER_YIELD)
    expect(got.prepared.file).toEqual(expected)
    expect(expected.chunks.length).toBeGreaterThan(10)
  })

  it("prepares a transcript's messages and counts its lines that are not JSON", async () => {
    const jsonl = `${JSON.stringify({ role: 'user', content: 'deploy the canary' })}\nnot json\n${JSON.stringify({ role: 'assistant', content: '部署 done' })}\n`
    const bytes = put('sessions/s1.jsonl', jsonl)
    const got = await readAndPrepare(inputOf('sessions/s1.jsonl'), NEVER_YIELD)
    if (got.kind !== 'prepared') throw new Error(`prepared, not ${got.kind}`)
    expect(got.malformedLines).toBe(1)
    const { text } = transcriptText(jsonl)
    expect(got.prepared.file).toEqual(await prepareFile(here('sessions/s1.jsonl', text, bytes), chunking, NEVER_YIELD))
  })

  it('prepares nothing for a file that still has the hash the index has', async () => {
    const bytes = put('memory/a.md', day(5))
    expect(await readAndPrepare(inputOf('memory/a.md', { unchangedIf: sha256(bytes) }), NEVER_YIELD)).toEqual({
      kind: 'unchanged',
      sha256: sha256(bytes),
      sizeBytes: bytes.length,
    })
    const changed = await readAndPrepare(inputOf('memory/a.md', { unchangedIf: sha256('before') }), NEVER_YIELD)
    expect(changed.kind).toBe('prepared')
  })

  it('hands back the text of a file too long to prepare there', async () => {
    const long = 'x'.repeat(THERE_MAX_CHARS + 1)
    const bytes = put('memory/long.md', long)
    expect(await readAndPrepare(inputOf('memory/long.md'), NEVER_YIELD)).toEqual({
      kind: 'text',
      sha256: sha256(bytes),
      sizeBytes: bytes.length,
      text: long,
    })
    put('memory/at.md', long.slice(1))
    expect((await readAndPrepare(inputOf('memory/at.md'), NEVER_YIELD)).kind).toBe('prepared')
  })

  it('refuses what the file API refuses, and answers a failed read with its code instead of throwing', async () => {
    put('memory/big.md', 'y'.repeat(100))
    const outside = path.join(os.tmpdir(), `mnemo-outside-${process.pid}.md`)
    fs.writeFileSync(outside, 'secret')
    try {
      fs.symlinkSync(outside, path.join(root, 'memory', 'link.md'))
      fs.symlinkSync(os.tmpdir(), path.join(root, 'away'))
      fs.linkSync(outside, path.join(root, 'memory', 'hard.md'))
      const read = (rel: string, over: Partial<ReadThereInput> = {}) => readAndPrepare(inputOf(rel, over), NEVER_YIELD)
      expect(await read('memory/big.md', { maxBytes: 99 })).toEqual({ kind: 'too-large', sizeBytes: 100 })
      expect(await read('memory/none.md')).toEqual({ kind: 'not-found' })
      expect((await read('memory/link.md')).kind).toBe('invalid')
      expect((await read(`away/${path.basename(outside)}`)).kind).toBe('invalid')
      expect((await read('memory/hard.md')).kind).toBe('invalid')
      expect(await read('memory/a.md', { root: path.join(root, 'gone') })).toMatchObject({
        kind: 'failed',
        code: 'ENOENT',
      })
    } finally {
      fs.rmSync(outside, { force: true })
    }
  })

  it('leaves a checkpoint the main thread resumes an append from, once kept', async () => {
    const text = day(200)
    const bytes = put('memory/2026-04-01.md', text)
    const got = await readAndPrepare(inputOf('memory/2026-04-01.md'), NEVER_YIELD)
    if (got.kind !== 'prepared') throw new Error(`prepared, not ${got.kind}`)
    const cache = createPrepareCache({ chunks: 10_000, termChars: 10_000_000, files: 4, fileChars: 8_000_000 })
    keepPrepared(cache, '/ws/memory/2026-04-01.md', got.prepared)
    // Its chunks' terms were kept too: none is analysed again on this thread.
    expect(cache.terms.size).toBe(new Set(got.prepared.file.chunks.map((c) => c.contentHash)).size)
    const grown = `${text}\n${entry(200)}`
    const input = { ...here('memory/2026-04-01.md', grown, bytes), sha256: 'grown' }
    const resumed = { offers: 0, maybeYield: async () => void resumed.offers++ }
    const second = await prepareFile(input, chunking, resumed, { prepare: cache, key: '/ws/memory/2026-04-01.md' })
    expect(second).toEqual(await prepareFile(input, chunking, NEVER_YIELD))
    expect(resumed.offers).toBeLessThan(10)
  })
})
