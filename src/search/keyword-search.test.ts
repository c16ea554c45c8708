import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { prepareFile } from '../indexing/prepare-file.js'
import { createIndexStore } from '../store/sqlite/index-store.js'
import { queryTerms } from '../text/analyzer.js'
import { createKeywordSearch } from './keyword-search.js'

const CHUNKING = { maxTokens: 60, overlapTokens: 10 }
const WORDS = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu 记忆 模型 部署 检索'.split(' ')

/** A few dozen notes whose words have a spread of document frequencies. */
function notes(): string {
  const out: string[] = []
  for (let i = 0; i < 40; i++) {
    const words = WORDS.filter((_, w) => (i * 7 + w * 3) % (w + 2) === 0)
    out.push(`## note ${i}\n${words.join(' ')} filler${i} ${words.slice(0, 2).join(' ')}`)
  }
  return out.join('\n\n')
}

describe('keyword search planning', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-keyword-'))
  const store = createIndexStore({ dbPath: path.join(dir, 'index.sqlite') })
  afterAll(() => {
    store.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('re-scores common terms outside FTS5 to exactly the score FTS5 gives', async () => {
    const slicer = { maybeYield: async () => undefined }
    for (const [rel, text] of [
      ['memory/a.md', notes()],
      ['memory/b.md', notes().replaceAll('alpha', 'omega')],
    ]) {
      const file = await prepareFile(
        { rel: rel!, text: text!, sha256: 'x', sizeBytes: 1, mtimeMs: 0, indexedAtMs: 0, readSeq: 1 },
        CHUNKING,
        slicer,
      )
      store.transaction((r) => r.replaceFile(file.record, file.chunks))
    }
    const exact = createKeywordSearch({ store, postingBudget: Number.POSITIVE_INFINITY })
    const split = createKeywordSearch({ store, postingBudget: 0 })
    const { rows } = store.corpusStats()
    for (const query of ['alpha gamma kappa', 'beta delta 记忆模型', 'eta theta iota mu', 'zeta lambda 部署检索']) {
      const terms = queryTerms(query)
      const { docFreqs } = store.keywordStats(terms)
      // Noise terms (in half the chunks or more) are set aside by design; keep them out here.
      expect(
        docFreqs.every((df) => df < rows / 2),
        query,
      ).toBe(true)
      const a = await exact.search(terms, 50, {})
      const b = new Map((await split.search(terms, 50, {})).map((h) => [h.id, h.textScore]))
      expect(a.length).toBeGreaterThan(3)
      for (const hit of a) {
        if (b.has(hit.id)) expect(b.get(hit.id), `${query} #${hit.id}`).toBeCloseTo(hit.textScore, 9)
      }
      expect(b.get(a[0]!.id)).toBeCloseTo(a[0]!.textScore, 9)
    }
  })
})
