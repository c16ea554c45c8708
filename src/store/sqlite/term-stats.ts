/**
 * The statistics a keyword query is planned and scored with (port.ts KeywordStats),
 * remembered per index generation: document frequencies from the FTS5 vocabulary and the
 * chunk count cost a read each, and every search of an unchanged index asks the same.
 */
import type { CorpusStats, KeywordStats } from '../port.js'

/** Distinct terms whose document frequency is remembered per generation. */
const DOC_FREQ_CACHE_SIZE = 50_000

export type TermStatsReads = {
  /** Changes whenever the index may have (a commit, a swap, another connection's commit). */
  generation(): number
  docFreq(term: string): number
  rows(): number
  /** Whether a change is half written (a big file staged over many transactions). */
  partial(): boolean
}

export function createTermStats(reads: TermStatsReads) {
  let cachedGeneration = -1
  let corpus: CorpusStats | null = null
  const docFreqs = new Map<string, number>()

  /** Empties the caches when the index changed since they were filled. */
  function fresh(): void {
    const current = reads.generation()
    if (current === cachedGeneration) return
    cachedGeneration = current
    corpus = null
    docFreqs.clear()
  }

  function docFreqsOf(terms: readonly string[]): number[] {
    fresh()
    if (docFreqs.size > DOC_FREQ_CACHE_SIZE) docFreqs.clear()
    return terms.map((term) => {
      let df = docFreqs.get(term)
      if (df === undefined) {
        df = reads.docFreq(term)
        docFreqs.set(term, df)
      }
      return df
    })
  }

  function corpusStats(): CorpusStats {
    fresh()
    corpus ??= { rows: reads.rows() }
    return corpus
  }

  return {
    /** The term's document frequency in the current generation. */
    docFreqOf: (term: string): number => docFreqsOf([term])[0] as number,
    corpusStats,
    keywordStats: (terms: readonly string[]): KeywordStats => ({
      docFreqs: docFreqsOf(terms),
      rows: corpusStats().rows,
      partial: reads.partial(),
    }),
  }
}
