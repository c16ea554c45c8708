/**
 * Which parts of a snippet to mark as matching the query, for people to see why a result
 * came back. The API does not say which terms matched, so this looks for the query's words
 * (letters and digits, case-insensitive, two characters or more) and, in Chinese or
 * Japanese text, for each pair of neighbouring characters of the query (a single one when
 * the query has only one): the same units the keyword index matches on.
 */

export type Segment = { text: string; mark: boolean }

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/u
const RUN = /[\p{L}\p{N}_]+/gu

/** The terms of a query to look for, longest first so a longer match wins where two start. */
export function queryTerms(query: string): string[] {
  const terms = new Set<string>()
  for (const [run] of query.toLowerCase().matchAll(RUN)) {
    let latin = ''
    const chars = [...run]
    const cjk: string[] = []
    const flushCjk = () => {
      if (cjk.length === 1) terms.add(cjk[0] as string)
      for (let i = 0; i + 1 < cjk.length; i++) terms.add(`${cjk[i]}${cjk[i + 1]}`)
      cjk.length = 0
    }
    for (const ch of chars) {
      if (CJK.test(ch)) {
        if (latin.length >= 2) terms.add(latin)
        latin = ''
        cjk.push(ch)
      } else {
        flushCjk()
        latin += ch
      }
    }
    flushCjk()
    if (latin.length >= 2) terms.add(latin)
  }
  return [...terms].sort((a, b) => b.length - a.length)
}

/** The snippet cut into plain and marked segments, in order; joined they are the snippet. */
export function markTerms(snippet: string, query: string): Segment[] {
  const terms = queryTerms(query)
  const lower = snippet.toLowerCase()
  // Lower-casing keeps lengths for the scripts marked here; where it would not, mark nothing.
  if (terms.length === 0 || lower.length !== snippet.length) return snippet ? [{ text: snippet, mark: false }] : []
  const marked = new Array<boolean>(snippet.length).fill(false)
  for (const term of terms) {
    for (let at = lower.indexOf(term); at !== -1; at = lower.indexOf(term, at + 1)) {
      // A word's start only; its end is free, so "deploy" marks "deployed" as stemming matches it.
      if (!isWordStart(lower, at, term)) continue
      for (let i = at; i < at + term.length; i++) marked[i] = true
    }
  }
  const segments: Segment[] = []
  for (let i = 0; i < snippet.length; i++) {
    const last = segments.at(-1)
    if (last && last.mark === marked[i]) last.text += snippet[i]
    else segments.push({ text: snippet[i] as string, mark: marked[i] as boolean })
  }
  return segments
}

const WORD = /[\p{L}\p{N}_]/u

/** A Latin term matches whole words' starts; CJK text has no spaces to look for. */
function isWordStart(text: string, at: number, term: string): boolean {
  if (CJK.test(term)) return true
  return at === 0 || !WORD.test(text[at - 1] as string) || CJK.test(text[at - 1] as string)
}
