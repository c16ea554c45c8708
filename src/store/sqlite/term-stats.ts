/**
 * The statistics a keyword query is planned and scored with (port.ts KeywordStats),
 * remembered while the index's chunks stay as they are: document frequencies from the FTS5
 * vocabulary and the chunk count cost a read each (a common term's count walks its postings,
 * 50 ms for one in half of a million chunks), and every search of an unchanged index asks
 * the same. Commits that change no chunk row (the index's upkeep: FTS5 merges, impact lists,
 * for minutes after a big sync) keep them.
 */
import type { CorpusStats, KeywordStats } from '../port.js'

/** Distinct terms whose document frequency is remembered per generation. */
const DOC_FREQ_CACHE_SIZE = 50_000

export type TermStatsReads = {
  /** Changes whenever the index may have (a commit, a swap, another connection's commit). */
  generation(): number
  /**
   * Changes whenever chunk rows were written (schema.ts CHUNKS_VERSION_KEY) or the index
   * was swapped; asked only when the generation changed.
   */
  contentVersion(): string
  docFreq(term: string): number
  rows(): number
  /** Whether a change is half written (a big file staged over many transactions). */
  partial(): boolean
}

export function createTermStats(reads: TermStatsReads) {
  let seenGeneration = -1
  let cachedContent: string | null = null
  let corpus: CorpusStats | null = null
  const docFreqs = new Map<string, number>()

  /** Empties the caches when the index's chunks changed since they were filled. */
  function fresh(): void {
    const generation = reads.generation()
    if (generation === seenGeneration) return
    seenGeneration = generation
    const content = reads.contentVersion()
    if (content === cachedContent) return
    cachedContent = content
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
    /** The term's document frequency in the index as it is now. */
    docFreqOf: (term: string): number => docFreqsOf([term])[0] as number,
    corpusStats,
    keywordStats: (terms: readonly string[]): KeywordStats => ({
      docFreqs: docFreqsOf(terms),
      rows: corpusStats().rows,
      partial: reads.partial(),
    }),
  }
}
