/**
 * The document frequencies a space's searches last read, per term, so an engine where the
 * statistics are a round trip of their own (PostgreSQL) can plan a query before it reads
 * them, and read them fresh in the candidates' own statement (keyword-search.ts). A guess
 * only: the plan it gives is kept when the fresh statistics give the same plan, else the
 * query is planned again from them.
 */
import { createLru } from '../shared/lru.js'
import type { KeywordStats } from '../store/port.js'

/**
 * Terms remembered per space: a few hundred kilobytes, and four times the distinct analysed
 * terms of the benchmark's 500 typical queries (1,016). The term used longest ago is
 * forgotten first.
 */
export const MEMO_TERMS = 4096

export function createDocFreqMemo(capacity = MEMO_TERMS) {
  const docFreqs = createLru<string, number>(capacity)
  let rows = 0

  return {
    /** The last statistics read for every one of `terms`, or undefined when a term was never read. */
    guess(terms: readonly string[]): KeywordStats | undefined {
      const guessed: number[] = []
      for (const term of terms) {
        const df = docFreqs.get(term)
        if (df === undefined) return undefined
        guessed.push(df)
      }
      return { rows, docFreqs: guessed, partial: false }
    },
    /** Remembers statistics just read; partial ones (a change half written) are not worth a guess. */
    remember(terms: readonly string[], stats: KeywordStats): void {
      if (stats.partial) return
      rows = stats.rows
      terms.forEach((term, i) => docFreqs.set(term, stats.docFreqs[i] ?? 0))
    },
  }
}
