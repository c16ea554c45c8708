/**
 * Text analysis shared by indexing and querying: it turns text into the terms FTS5 stores,
 * so both sides always agree. Words are NFKC-folded and lowercased; identifiers yield their
 * parts and the joined whole (`qwen-max` → qwen, max, qwen_max); CJK runs yield character
 * bigrams, plus single characters so one-character queries still match. Porter stemming and
 * diacritic folding happen inside FTS5 (see store/schema.ts), on both sides alike.
 */
import { TEXT_RUN } from './scripts.js'
import { CJK_STOPWORDS, ENGLISH_STOPWORDS } from './stopwords.js'

/**
 * Version of the term format. The index records it; a different value makes the next sync
 * re-index every file, so bump it whenever indexTokens() would emit different terms.
 */
export const ANALYZER_VERSION = 'mnemo-terms-1'

/** Compounds longer than this are not also indexed whole (paths, long dotted chains). */
const MAX_COMPOUND_PARTS = 6
/** Longer tokens are noise (hashes, base64); they are dropped. */
const MAX_TOKEN_CHARS = 64
/** Cap on query terms so a pasted page cannot make one search walk the whole index. */
export const MAX_QUERY_TERMS = 48

const CONNECTOR = /[-_.:/@+#]/
/** Splits camelCase and PascalCase: getUserName → get|User|Name, HTTPServer → HTTP|Server. */
const CAMEL_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u

const segmenter = new Intl.Segmenter('zh', { granularity: 'word' })

/** Terms to search for, and CJK phrases (bigram sequences) that boost exact substrings. */
export type QueryTerms = { terms: string[]; phrases: string[][] }

function pushToken(out: string[], token: string): void {
  if (token.length > 0 && token.length <= MAX_TOKEN_CHARS) out.push(token)
}

/** Tokens of one non-CJK run, in text order: parts, camel wholes, then the compound whole. */
function wordTokens(run: string, out: string[]): string[] {
  const pieces = run.split(CONNECTOR).filter(Boolean)
  const parts: string[] = []
  for (const piece of pieces) {
    const camel = piece.split(CAMEL_BOUNDARY)
    for (const part of camel) {
      const lower = part.toLowerCase()
      pushToken(out, lower)
      parts.push(lower)
    }
    if (camel.length > 1) pushToken(out, piece.toLowerCase())
  }
  if (pieces.length > 1 && pieces.length <= MAX_COMPOUND_PARTS) {
    pushToken(out, pieces.map((p) => p.toLowerCase()).join('_'))
  }
  return parts
}

/** Character bigrams of a CJK run in order (the run itself when it is one character). */
function bigrams(run: string): string[] {
  const chars = Array.from(run)
  if (chars.length === 1) return chars
  const out: string[] = []
  for (let i = 0; i + 1 < chars.length; i++) out.push((chars[i] as string) + (chars[i + 1] as string))
  return out
}

/** The space-free tokens stored in FTS5 for `text`, in text order. */
export function indexTokens(text: string): string[] {
  const out: string[] = []
  for (const match of text.normalize('NFKC').matchAll(TEXT_RUN)) {
    const [, cjk, word] = match
    if (word !== undefined) {
      wordTokens(word, out)
    } else if (cjk !== undefined) {
      const chars = Array.from(cjk)
      if (chars.length > 1) out.push(...bigrams(cjk))
      out.push(...chars)
    }
  }
  return out
}

/** CJK sub-runs of a query run, split at function words and question words. */
function cjkQueryRuns(run: string): string[] {
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

/**
 * Query terms: stopwords are dropped unless nothing else is left, duplicates removed,
 * at most MAX_QUERY_TERMS kept in query order.
 */
export function queryTerms(query: string): QueryTerms {
  const content: string[] = []
  const fallback: string[] = []
  const phrases: string[][] = []
  for (const match of query.normalize('NFKC').matchAll(TEXT_RUN)) {
    const [, cjk, word] = match
    if (word !== undefined) {
      const tokens: string[] = []
      const parts = wordTokens(word, tokens)
      fallback.push(...tokens)
      const isStop = parts.length === 1 && ENGLISH_STOPWORDS.has(parts[0] as string)
      if (!isStop) content.push(...tokens.filter((t) => !ENGLISH_STOPWORDS.has(t)))
    } else if (cjk !== undefined) {
      fallback.push(...bigrams(cjk))
      for (const run of cjkQueryRuns(cjk)) {
        const grams = bigrams(run)
        content.push(...grams)
        if (grams.length >= 2) phrases.push(grams)
      }
    }
  }
  const terms = [...new Set(content.length > 0 ? content : fallback)].slice(0, MAX_QUERY_TERMS)
  return { terms, phrases: content.length > 0 ? phrases : [] }
}
