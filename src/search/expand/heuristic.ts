/**
 * Expansion without a chat model: keyword variants that spell the query's words the other
 * ways notes write them, from the query alone (no synonyms dictionary, nothing tuned to a
 * corpus). The analyzer (src/text/analyzer.ts) already stems, folds case and diacritics,
 * splits identifiers into their parts and CJK into bigrams, so what is left to add is
 * word boundaries the query and a note may draw differently:
 *   - forms: `e-mail` → `email` (a note writing `email` is indexed as the stemmed word, which
 *     the analyzer does not derive from `e-mail`), `gpt4` → `gpt4 gpt-4` (`gpt`, `4`, as a
 *     note writing `gpt-4` or `GPT 4` is indexed);
 *   - joined pairs: adjacent Latin words written apart, `user name` → `username` (as a note
 *     writing `username` is indexed; `userName` is matched by its parts already), once for
 *     the pairs starting at even words and once for the odd ones, so every pair is tried.
 * Joined words are written plainly, not in camel case: the analyzer stems a plain word
 * (`username` → `usernam`) but keeps a camel-case whole as it is.
 * Stopwords are never joined. CJK is left as it is: bigrams already match a word however it
 * is segmented. Variants are `lex` only: without a model there is nothing to rephrase.
 */
import { CJK_CHAR } from '../../text/scripts.js'
import { ENGLISH_STOPWORDS } from '../../text/stopwords.js'
import type { Variant, VariantSource } from './variants.js'

const WORD = /[\p{L}\p{M}\p{N}]+(?:[-_.:/@+#][\p{L}\p{M}\p{N}]+)*/gu
const CONNECTOR = /[-_.:/@+#]/g
const LATIN_WORD = /^\p{Script=Latin}+$/u
const LETTER_DIGIT = /(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u
/** Parts worth joining start with a Latin letter (a date's `2026-02-16` is matched by its parts). */
const LATIN_PART = /^\p{Script=Latin}/u

type Word = { start: number; end: number; text: string }

/** The other spelling of one word, or undefined when it has none. */
function otherForm(word: string): string | undefined {
  if (CJK_CHAR.test(word)) return undefined
  const parts = word.split(CONNECTOR)
  if (parts.length > 1) {
    if (!parts.every((p) => LATIN_PART.test(p))) return undefined
    return parts.join('').toLowerCase()
  }
  const pieces = word.split(LETTER_DIGIT)
  return pieces.length > 1 ? `${word} ${pieces.join('-')}` : undefined
}

/** `text` with some words replaced (by index in `words`). */
function rewrite(text: string, words: readonly Word[], replaced: ReadonlyMap<number, string>): string {
  let out = ''
  let at = 0
  for (const [i, replacement] of [...replaced].sort((a, b) => a[0] - b[0])) {
    const w = words[i] as Word
    out += text.slice(at, w.start) + replacement
    at = w.end
  }
  return out + text.slice(at)
}

/** Whether word i and i + 1 are joined: both Latin non-stopwords written apart by whitespace. */
function joinable(text: string, words: readonly Word[], i: number): boolean {
  const [a, b] = [words[i], words[i + 1]]
  if (!a || !b || text.slice(a.end, b.start).trim() !== '') return false
  return [a, b].every((w) => LATIN_WORD.test(w.text) && !ENGLISH_STOPWORDS.has(w.text.toLowerCase()))
}

function joinedPairs(text: string, words: readonly Word[], offset: number): string | undefined {
  // Merged pairs are written as one replacement of the pair's first word up to the second's end.
  const merged: Word[] = []
  const replaced = new Map<number, string>()
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as Word
    if (i % 2 === offset && joinable(text, words, i)) {
      const next = words[i + 1] as Word
      merged.push({ start: w.start, end: next.end, text: '' })
      replaced.set(merged.length - 1, (w.text + next.text).toLowerCase())
      i++
    } else merged.push(w)
  }
  return replaced.size > 0 ? rewrite(text, merged, replaced) : undefined
}

export function heuristicVariants(query: string): Variant[] {
  const text = query.normalize('NFKC')
  const words: Word[] = [...text.matchAll(WORD)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    text: m[0],
  }))
  const forms = new Map<number, string>()
  words.forEach((w, i) => {
    const form = otherForm(w.text)
    if (form !== undefined) forms.set(i, form)
  })
  const lex = [
    forms.size > 0 ? rewrite(text, words, forms) : undefined,
    joinedPairs(text, words, 0),
    joinedPairs(text, words, 1),
  ]
  return lex.filter((v): v is string => v !== undefined).map((v) => ({ type: 'lex', text: v }))
}

/** The heuristic as a variant source (it never fails and needs no time limit). */
export const heuristicSource: VariantSource = {
  model: 'heuristic',
  variants: (query) => Promise.resolve(heuristicVariants(query)),
}
