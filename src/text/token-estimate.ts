/**
 * Token estimate for chunk sizing. A CJK character is about one token in common LLM
 * tokenizers, while other text averages about four characters per token, so chars/4 alone
 * would make Chinese chunks four times too large.
 */
import { CJK_CHAR } from './scripts.js'

/** Characters of non-CJK text per estimated token. */
export const LATIN_CHARS_PER_TOKEN = 4

/** No CJK script has a character below U+1100 (Hangul Jamo): those skip the regular expression. */
const FIRST_CJK = 0x1100

/** Past the Basic Multilingual Plane, code points are rare: those are asked of the regular expression. */
const BMP_END = 0x10000
/**
 * CJK_CHAR's answer per BMP code point, filled as characters are met (0 not asked yet,
 * 1 no, 2 yes; 64 KB): the regular expression needs a string per character, which made it
 * most of a search's token counting (issue 19) and of chunking Chinese text.
 */
const bmpAnswers = new Uint8Array(BMP_END)

/** Whether the character at code point `cp` is CJK. */
export function isCjkCodePoint(cp: number): boolean {
  if (cp < FIRST_CJK) return false
  if (cp >= BMP_END) return CJK_CHAR.test(String.fromCodePoint(cp))
  let answer = bmpAnswers[cp] as number
  if (answer === 0) {
    answer = CJK_CHAR.test(String.fromCodePoint(cp)) ? 2 : 1
    bmpAnswers[cp] = answer
  }
  return answer === 2
}

/** Estimated token cost of one character (1 for CJK, 1/4 otherwise). */
export function charTokenCost(ch: string): number {
  return isCjkCodePoint(ch.codePointAt(0) ?? 0) ? 1 : 1 / LATIN_CHARS_PER_TOKEN
}

/**
 * Estimated tokens in `text`, rounded up; 0 only for the empty string. One pass over the
 * code units, without building an array of matches (a line can be megabytes long).
 */
export function estimateTokens(text: string): number {
  let cjk = 0
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < FIRST_CJK) continue
    const cp = text.codePointAt(i) as number
    if (cp > 0xffff) i++
    if (isCjkCodePoint(cp)) cjk++
  }
  return cjk + Math.ceil((text.length - cjk) / LATIN_CHARS_PER_TOKEN)
}

/**
 * Whether `text` is over `maxTokens`, without counting a text that is plainly too long:
 * every code unit costs at least 1/4 token, so a text of more than 4 × maxTokens units is.
 */
export const exceedsTokens = (text: string, maxTokens: number): boolean =>
  text.length > maxTokens * LATIN_CHARS_PER_TOKEN || estimateTokens(text) > maxTokens
