/**
 * Absolute keyword scores (pure). A chunk's textScore says how much of the query it
 * matches, on a scale that means the same for every query and every workspace, so that a
 * fixed minScore can tell "I remember this" from "nothing here is about that":
 *
 *   match(chunk) = Σ_t w(t) · tf(t, chunk) / Σ_t w(t)      over the query's terms t
 *   textScore    = tanh(match)
 *
 * w is BM25's IDF in Lucene's form, ln(1 + (N − n + 0.5)/(n + 0.5)): positive for every
 * document frequency n (FTS5's form drops to 1e-6 for terms in half the chunks, which in a
 * five-chunk workspace would make every term worthless), and highest for a term the
 * workspace has never seen, so a query about something absent scores low; a name the
 * workspace has never seen weighs more still (ABSENT_NAME_WEIGHT). tf is BM25's saturating
 * term frequency f·(k1 + 1)/(f + k1·(1 − b + b·D/R)): 1 for one occurrence in a chunk of
 * REFERENCE_TOKENS terms, up to k1 + 1 = 2.2 for repeats or a heading, less in a longer chunk.
 *
 * So match = 1 when every query term occurs once in a chunk of reference length, and match
 * is the share of the query's information a chunk holds when it holds part of it. tanh keeps
 * scores in [0, 1) and close to `match` below 0.5: the default minScore 0.35 keeps a chunk
 * holding about a third of the query's information or more (tanh(0.365) = 0.35).
 *
 * Ranking by match is BM25 with Lucene's IDF and a fixed average length R: Σ w is one
 * constant per query.
 */
import { bm25TermScore } from './bm25.js'

/** IDF of a term found in `docFreq` of `rows` chunks (Lucene's BM25 IDF, always > 0). */
export function matchIdf(rows: number, docFreq: number): number {
  return Math.log(1 + (rows - docFreq + 0.5) / (docFreq + 0.5))
}

/**
 * How much more than its IDF a name weighs that the workspace has never seen (analyzer.ts
 * says which query words are names: Caroline, LGBTQ, Kubernetes). A question is about the
 * people and things it names; a memory that holds none of a name cannot answer it, however
 * many of the question's other words it has. An absent term matches no chunk, so this
 * lowers every chunk's score alike and never changes the ranking. Measured with `npm run
 * eval -- abstain` (BENCHMARKS.md): with 3, chat questions asked of scientific abstracts
 * were answered 4 % of the time instead of 51 %, and on-topic answers were unchanged.
 */
export const ABSENT_NAME_WEIGHT = 3

/** Weight of a query term in `match`: its matchIdf, times ABSENT_NAME_WEIGHT for an absent name. */
export function termWeight(rows: number, docFreq: number, isName: boolean): number {
  return (isName && docFreq === 0 ? ABSENT_NAME_WEIGHT : 1) * matchIdf(rows, docFreq)
}

/**
 * The chunk length (analysed terms, body and context) BM25's length normalisation compares
 * a chunk with, in place of the workspace's average. With the average, every short note
 * an agent wrote lowered the score of every older, longer note (300 one-line flushes took an
 * exact match from 0.54 to below minScore 0.35): a memory must not forget because it was
 * used. A fixed length keeps a chunk's score its own business. 250 lies between the dev
 * sets' averages (SciFact 196, LoCoMo 267 analysed terms per chunk; CMRC 555, where Chinese
 * bigrams count twice per character), where the default minScore was calibrated; ranking
 * on the dev sets is unchanged within noise from 150 to 400 (BENCHMARKS.md).
 */
export const REFERENCE_TOKENS = 250

/** Saturated frequency of a term: 1 for one occurrence in a chunk of REFERENCE_TOKENS terms. */
export function termMatch(freq: number, docTokens: number): number {
  return bm25TermScore(1, freq, docTokens, REFERENCE_TOKENS)
}

/**
 * match of one chunk: `weights` are the query terms' termWeight, `tfs` their
 * termMatch in the chunk (0 when absent), in the same order.
 */
export function matchShare(weights: readonly number[], tfs: readonly number[]): number {
  let mass = 0
  let matched = 0
  weights.forEach((w, i) => {
    mass += w
    matched += w * (tfs[i] ?? 0)
  })
  return mass > 0 ? matched / mass : 0
}

/** textScore for a match share: monotonic, 0 at 0, below 1. */
export function textScoreOf(match: number): number {
  return Math.tanh(Math.max(0, match))
}

/** Rounds a score for responses (6 decimals keeps ordering, drops float noise). */
export function roundScore(score: number): number {
  return Math.round(score * 1e6) / 1e6
}
