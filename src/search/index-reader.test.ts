import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { prepareFile } from '../indexing/prepare-file.js'
import { createIndexStore } from '../store/sqlite/index-store.js'
import { analyseQuery } from '../text/analyzer.js'
import { lineTermString } from '../text/line-terms.js'
import { createReaderOps } from './index-reader.js'

const CHUNKING = { maxTokens: 60, overlapTokens: 10 }
const slicer = { maybeYield: async () => undefined }

describe('reader operations', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-index-reader-'))
  const store = createIndexStore({ dbPath: path.join(dir, 'index.sqlite') })
  const ops = createReaderOps(store)
  afterAll(() => {
    store.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('brings the texts and body terms of the best keyword hits when asked, and only of those', async () => {
    const notes = Array.from({ length: 6 }, (_, i) => `## note ${i}\nwalrus ${'tusk '.repeat(i + 1)}ice`).join('\n\n')
    const file = await prepareFile(
      { rel: 'memory/a.md', text: notes, sha256: 'x', sizeBytes: 1, mtimeMs: 0, indexedAtMs: 0, readSeq: 1 },
      CHUNKING,
      slicer,
    )
    store.transaction((r) => r.replaceFile(file.record, file.chunks))
    const req = { ...analyseQuery('walrus tusk'), limit: 10, filters: {} }

    const plain = await ops.keyword(req)
    const withTexts = await ops.keyword({ ...req, texts: 2 })

    expect(plain.length).toBeGreaterThan(3)
    expect(plain.every((h) => h.text === undefined)).toBe(true)
    // The same hits in the same order with the same scores; the first two carry their texts.
    expect(withTexts.map(({ text: _text, bodyTerms: _terms, ...head }) => head)).toEqual(plain)
    const texts = await ops.texts(plain.slice(0, 2).map((h) => h.id))
    expect(withTexts.slice(0, 2).map((h) => h.text)).toEqual(plain.slice(0, 2).map((h) => texts.get(h.id)?.text))
    expect(withTexts[0]?.text).toContain('walrus')
    expect(withTexts.slice(2).every((h) => h.text === undefined && h.bodyTerms === undefined)).toBe(true)
    // With each text, its terms line by line, for the snippet (search/snippet.ts).
    for (const hit of withTexts.slice(0, 2)) expect(hit.bodyTerms).toBe(lineTermString(hit.text ?? '').terms)
    expect(withTexts[0]?.bodyTerms).toContain('\n')
  })
})
