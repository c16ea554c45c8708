/**
 * Token estimate for chunk sizing. A CJK character is about one token in common LLM
 * tokenizers, while other text averages about four characters per token, so chars/4 alone
 * would make Chinese chunks four times too large.
 */
import { CJK_CHAR } from './scripts.js'

/** Characters of non-CJK text per estimated token. */
export const LATIN_CHARS_PER_TOKEN = 4

const CJK_GLOBAL = new RegExp(CJK_CHAR.source, 'gv')

/** Estimated token cost of one character (1 for CJK, 1/4 otherwise). */
export function charTokenCost(ch: string): number {
  return CJK_CHAR.test(ch) ? 1 : 1 / LATIN_CHARS_PER_TOKEN
}

/** Estimated tokens in `text`, rounded up; 0 only for the empty string. */
export function estimateTokens(text: string): number {
  const cjk = text.match(CJK_GLOBAL)?.length ?? 0
  return cjk + Math.ceil((text.length - cjk) / LATIN_CHARS_PER_TOKEN)
}
