/**
 * Text analysis shared by indexing and querying: it turns text into the exact terms FTS5
 * stores, so both sides always agree and the search side can look terms up in the index
 * vocabulary. Words are NFKC-folded, lowercased, stripped of Latin diacritics and
 * Porter-stemmed; identifiers yield their parts and the joined whole (`qwen-max` → qwen,
 * max, qwen_max); CJK runs yield character bigrams, plus single characters so
 * one-character queries still match. FTS5 itself only splits on the spaces between terms.
 */
import { stemmer } from 'stemmer'
import { ASCII_TEXT_RUN, NON_ASCII, TEXT_RUN } from './scripts.js'
import { CJK_STOPWORDS, ENGLISH_STOPWORDS } from './stopwords.js'

/**
 * Version of the term format. The index records it; a different value makes the next sync
 * re-index every file, so bump it whenever indexTokens() would emit different terms.
 */
export const ANALYZER_VERSION = 'mnemo-terms-2'

/** Compounds longer than this are not also indexed whole (paths, long dotted chains). */
const MAX_COMPOUND_PARTS = 6
/** Longer tokens are noise (hashes, base64); they are dropped. */
const MAX_TOKEN_CHARS = 64
/** Cap on query terms so a pasted page cannot make one search walk the whole index. */
export const MAX_QUERY_TERMS = 48
/**
 * Characters of a Chinese run a query segments at a time, in UTF-16 units. Word
 * segmentation (ICU's dictionary) is the costly step of analysing a query; a window of 256
 * characters yields far more than MAX_QUERY_TERMS bigrams, after which the rest of the query
 * cannot change its terms. A mixed 4,000-character query: 2.3 ms → 0.2 ms on the main thread.
 */
const CJK_QUERY_WINDOW = 256

const CONNECTOR = /[-_.:/@+#]/
/** Splits camelCase and PascalCase: getUserName → get|User|Name, HTTPServer → HTTP|Server. */
const CAMEL_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u
const LATIN_WITH_MARKS = /^[\p{Script=Latin}\p{M}\p{N}]+$/u
const COMBINING_DIACRITICS = /[\u0300-\u036f]/g
/** Words the Porter stemmer applies to; shorter words and anything else stay as they are. */
const STEMMABLE = /^[a-z]{3,}$/

const segmenter = new Intl.Segmenter('zh', { granularity: 'word' })

/** One word's term, and whether the word (before stemming) is a stopword. */
type WordTerm = { term: string; stop: boolean }

/** Lowercase, fold Latin diacritics (café → cafe), stem English-like words. */
function normalizeWord(word: string): string {
  let w = word.toLowerCase()
  if (LATIN_WITH_MARKS.test(w)) w = w.normalize('NFD').replace(COMBINING_DIACRITICS, '').normalize('NFC')
  return STEMMABLE.test(w) ? stemmer(w) : w
}

function push(out: WordTerm[], term: string, stop: boolean): void {
  if (term.length > 0 && term.length <= MAX_TOKEN_CHARS) out.push({ term, stop })
}

/**
 * Distinct words whose terms are remembered. Analysis is a pure function of the word and
 * words repeat (Zipf), so this memo cannot change a result; it roughly halves indexing time.
 * It is the one module-level cache in mnemo, bounded and cleared when full.
 */
const WORD_MEMO_SIZE = 50_000
const wordMemo = new Map<string, readonly WordTerm[]>()

/** Terms of one non-CJK run (memoised). */
function wordTerms(run: string): readonly WordTerm[] {
  let terms = wordMemo.get(run)
  if (!terms) {
    if (wordMemo.size >= WORD_MEMO_SIZE) wordMemo.clear()
    terms = analyseWord(run)
    wordMemo.set(run, terms)
  }
  return terms
}

/** Terms of one non-CJK run, in text order: parts, camel wholes, then the compound whole. */
function analyseWord(run: string): WordTerm[] {
  const out: WordTerm[] = []
  const pieces = run.split(CONNECTOR).filter(Boolean)
  for (const piece of pieces) {
    const camel = piece.split(CAMEL_BOUNDARY)
    for (const part of camel) push(out, normalizeWord(part), ENGLISH_STOPWORDS.has(part.toLowerCase()))
    if (camel.length > 1) push(out, piece.toLowerCase(), false)
  }
  if (pieces.length > 1 && pieces.length <= MAX_COMPOUND_PARTS) {
    push(out, pieces.map((p) => p.toLowerCase()).join('_'), false)
  }
  return out
}

/** Character bigrams of a CJK run in order (the run itself when it is one character). */
function bigrams(run: string): string[] {
  const chars = Array.from(run)
  if (chars.length === 1) return chars
  const out: string[] = []
  for (let i = 0; i + 1 < chars.length; i++) out.push((chars[i] as string) + (chars[i + 1] as string))
  return out
}

/** This module's own copies of the run patterns: exec moves a global pattern's lastIndex. */
const UNICODE_RUNS = new RegExp(TEXT_RUN)
const ASCII_RUNS = new RegExp(ASCII_TEXT_RUN)

/**
 * Calls `visit` with each TEXT_RUN match in the NFKC form of `text`, in order (`visit` must
 * not call it again). ASCII text is its own NFKC form and is matched by ASCII_TEXT_RUN; a loop
 * over exec, because matchAll copies its pattern at every call, which for one short line costs
 * as much as the matching.
 */
function eachRun(text: string, visit: (match: RegExpExecArray) => void): void {
  const ascii = !NON_ASCII.test(text)
  const runs = ascii ? ASCII_RUNS : UNICODE_RUNS
  const normal = ascii ? text : text.normalize('NFKC')
  runs.lastIndex = 0
  for (let match = runs.exec(normal); match !== null; match = runs.exec(normal)) visit(match)
}

/** Calls `visit` with each space-free term stored in FTS5 for `text`, in text order. */
export function eachIndexTerm(text: string, visit: (term: string) => void): void {
  eachRun(text, ([, cjk, word]) => {
    if (word !== undefined) {
      for (const w of wordTerms(word)) visit(w.term)
    } else if (cjk !== undefined) {
      const chars = Array.from(cjk)
      if (chars.length > 1) for (const pair of bigrams(cjk)) visit(pair)
      for (const ch of chars) visit(ch)
    }
  })
}

/** The space-free terms stored in FTS5 for `text`, in text order. */
export function indexTokens(text: string): string[] {
  const out: string[] = []
  eachIndexTerm(text, (term) => out.push(term))
  return out
}

/**
 * Where analysed terms occur in `text`: for each word or CJK run, its offset (UTF-16 units
 * of the NFKC form, which keeps the offsets of nearly all text) and its index terms.
 * Snippets use it to find query terms with the same analyzer as the index.
 */
export function* termRuns(text: string): Generator<{ at: number; terms: string[] }> {
  for (const match of text.normalize('NFKC').matchAll(TEXT_RUN)) {
    const [, cjk, word] = match
    if (word !== undefined) yield { at: match.index, terms: wordTerms(word).map((w) => w.term) }
    else if (cjk !== undefined) {
      const chars = Array.from(cjk)
      let at = match.index
      for (let i = 0; i < chars.length; i++) {
        const pair = i + 1 < chars.length ? (chars[i] as string) + (chars[i + 1] as string) : undefined
        yield { at, terms: pair ? [chars[i] as string, pair] : [chars[i] as string] }
        at += (chars[i] as string).length
      }
    }
  }
}

/** `text` in pieces of about `size` UTF-16 units, never splitting a surrogate pair. */
function* windows(text: string, size: number): Generator<string> {
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + size)
    const unit = text.charCodeAt(end)
    if (end < text.length && unit >= 0xdc00 && unit <= 0xdfff) end++
    yield text.slice(at, end)
    at = end
  }
}

/** Every character of a CJK stopword. */
const CJK_STOPWORD_CHARS: ReadonlySet<string> = new Set([...CJK_STOPWORDS].flatMap((w) => Array.from(w)))

/** Whether `run` holds a character of some CJK stopword (else no segment of it can be one). */
function mayHoldStopword(run: string): boolean {
  for (const ch of run) if (CJK_STOPWORD_CHARS.has(ch)) return true
  return false
}

/** CJK sub-runs of a query run, split at function words and question words. */
function cjkQueryRuns(run: string): string[] {
  // Segmenting (ICU's dictionary) is most of a query's analysis: a run without any stopword
  // character is left whole without it, as segmenting would leave it (issue 19).
  if (!mayHoldStopword(run)) return [run]
  const runs: string[] = []
  let current = ''
  for (const { segment } of segmenter.segment(run)) {
    if (CJK_STOPWORDS.has(segment)) {
      if (current) runs.push(current)
      current = ''
    } else {
      current += segment
    }
  }
  if (current) runs.push(current)
  return runs
}

const HAS_UPPER = /\p{Lu}/u
/** Text before a word that ends a sentence: nothing, or . ! ? (and closing quotes). */
const SENTENCE_END = /(?:^|[.!?。！？])["'”’)\]]*\s*$/u

/**
 * Whether a word is written as a name where it stands in `text`: it has a capital letter
 * that does not merely start a sentence (Caroline, LGBTQ, Kubernetes, iOS).
 */
function isName(word: string, text: string, at: number): boolean {
  if (!HAS_UPPER.test(word)) return false
  if (HAS_UPPER.test(word.slice(1))) return true
  return !SENTENCE_END.test(text.slice(Math.max(0, at - 8), at))
}

/** Analysed query: distinct terms in query order, and whether each was written as a name. */
export type QueryAnalysis = { terms: string[]; names: boolean[] }

/**
 * Query terms: stopwords are dropped unless nothing else is left, duplicates removed,
 * at most MAX_QUERY_TERMS kept in query order.
 */
export function analyseQuery(query: string): QueryAnalysis {
  const text = query.normalize('NFKC')
  // Content terms in query order, each once. Once MAX_QUERY_TERMS are found, the rest of the
  // query is not read (nor can a later capitalised repeat of a kept term make it a name).
  const content = new Set<string>()
  const fallback: string[] = []
  const named = new Set<string>()
  for (const match of text.matchAll(TEXT_RUN)) {
    if (content.size >= MAX_QUERY_TERMS) break
    const [, cjk, word] = match
    if (word !== undefined) {
      const name = isName(word, text, match.index)
      for (const w of wordTerms(word)) {
        fallback.push(w.term)
        if (!w.stop) content.add(w.term)
        if (name) named.add(w.term)
      }
    } else if (cjk !== undefined) {
      fallback.push(...bigrams(cjk))
      for (const piece of windows(cjk, CJK_QUERY_WINDOW)) {
        if (content.size >= MAX_QUERY_TERMS) break
        for (const run of cjkQueryRuns(piece)) for (const term of bigrams(run)) content.add(term)
      }
    }
  }
  const terms = [...(content.size > 0 ? content : new Set(fallback))].slice(0, MAX_QUERY_TERMS)
  return { terms, names: terms.map((t) => named.has(t)) }
}

/** The terms of analyseQuery. */
export function queryTerms(query: string): string[] {
  return analyseQuery(query).terms
}
