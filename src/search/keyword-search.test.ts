import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { prepareFile } from '../indexing/prepare-file.js'
import type { KeywordIndex } from '../store/port.js'
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

  async function write(rel: string, text: string): Promise<void> {
    const slicer = { maybeYield: async () => undefined }
    const file = await prepareFile(
      { rel, text, sha256: 'x', sizeBytes: 1, mtimeMs: 0, indexedAtMs: 0, readSeq: 1 },
      CHUNKING,
      slicer,
    )
    store.transaction((r) => r.replaceFile(file.record, file.chunks))
  }

  it('re-scores common terms outside FTS5 to exactly the score FTS5 gives', async () => {
    await write('memory/a.md', notes())
    await write('memory/b.md', notes().replaceAll('alpha', 'omega'))
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

  it('plans from the statistics last read, with candidates and fresh statistics in one call, and plans again when they differ', async () => {
    const calls: string[] = []
    // The SQLite store's reads, as an engine that reads candidates and statistics together would.
    const together: KeywordIndex = {
      candidates: (q) => {
        calls.push(`candidates ${q.terms.join(' ')}`)
        // Planned from statistics just read: the engine is told the terms' frequencies.
        expect(q.docFreqs).toEqual(store.keywordStats(q.terms).docFreqs)
        return store.candidates(q)
      },
      newestMatches: (q) => store.newestMatches(q),
      keywordStats: (terms) => (calls.push('stats'), store.keywordStats(terms)),
      candidatesWithStats: async (q, statsOf) => {
        calls.push(`together ${q.terms.join(' ')}`)
        return { rows: store.candidates(q), stats: store.keywordStats(statsOf) }
      },
    }
    const terms = queryTerms('alpha kappa')
    const fits = store.keywordStats(terms).docFreqs.reduce((a, b) => a + b, 0)
    const apart = createKeywordSearch({ store, postingBudget: fits })
    const guessing = createKeywordSearch({ store: together, postingBudget: fits })

    const first = await guessing.search(terms, 10, {})
    expect(calls.splice(0)).toEqual(['stats', 'candidates alpha kappa'])
    const second = await guessing.search(terms, 10, {})
    expect(calls.splice(0)).toEqual(['together alpha kappa'])
    expect(second).toEqual(first)
    expect(second).toEqual(await apart.search(terms, 10, {}))
    expect(second.length).toBeGreaterThan(3)

    // More chunks hold kappa: both terms no longer fit the budget, so only the rarer ranks.
    await write('memory/c.md', Array.from({ length: 6 }, (_, i) => `## more ${i}\nkappa filler${i}`).join('\n\n'))
    const [alphaDf, kappaDf] = store.keywordStats(terms).docFreqs as [number, number]
    const third = await guessing.search(terms, 10, {})
    expect(calls.splice(0)).toEqual(['together alpha kappa', `candidates ${alphaDf < kappaDf ? 'alpha' : 'kappa'}`])
    expect(third).toEqual(await apart.search(terms, 10, {}))
    // And the fresh statistics are remembered: the next search is one call again.
    await guessing.search(terms, 10, {})
    expect(calls.splice(0)).toEqual([`together ${alphaDf < kappaDf ? 'alpha' : 'kappa'}`])
  })
})
