/**
 * The token budget of one search answer (pure): `maxTokens` on /search. Agents budget their
 * context in tokens, not results, so results are packed best first while their snippets
 * fit (estimated as chunking does, text/token-estimate.ts: a CJK character ≈ 1 token, other
 * text ≈ 4 characters per token). The result that crosses the budget keeps the whole lines
 * of its snippet that fit and is the last one; when not even its first line fits, it is
 * dropped — unless it is the best result, which is cut inside the line rather than leave
 * the answer empty. Without a budget every snippet is kept and only counted.
 */
import { estimateTokens, isCjkCodePoint, LATIN_CHARS_PER_TOKEN } from '../text/token-estimate.js'

/** The longest prefix of `text` of whole lines (or, when `inLine`, whole characters) within `maxTokens`. */
export function trimToTokens(text: string, maxTokens: number, inLine: boolean): string {
  if (estimateTokens(text) <= maxTokens) return text
  let end = 0
  for (;;) {
    const next = text.indexOf('\n', end)
    if (next < 0 || estimateTokens(text.slice(0, next)) > maxTokens) break
    end = next + 1
  }
  if (end > 0 || !inLine) return text.slice(0, end).replace(/\n$/, '')
  // Cut inside the first line, counting as estimateTokens does: CJK characters, then the rest.
  let cut = 0
  let cjk = 0
  let other = 0
  for (const char of text) {
    if (isCjkCodePoint(char.codePointAt(0) ?? 0)) cjk++
    else other += char.length
    if (cjk + Math.ceil(other / LATIN_CHARS_PER_TOKEN) > maxTokens) break
    cut += char.length
  }
  return text.slice(0, cut)
}

export function createTokenBudget(maxTokens: number | undefined) {
  let used = 0
  let full = false
  return {
    /** True once the budget is spent: no later result is returned. */
    full: () => full,
    /**
     * The snippet to return for the next result, or null when the result does not fit and
     * the answer ends before it. `first`: no result was returned before it.
     */
    fit(snippet: string, first: boolean): string | null {
      const tokens = estimateTokens(snippet)
      if (maxTokens === undefined || used + tokens <= maxTokens) {
        used += tokens
        if (maxTokens !== undefined && used >= maxTokens) full = true
        return snippet
      }
      full = true
      const cut = trimToTokens(snippet, maxTokens - used, first)
      if (cut === '') return null
      used += estimateTokens(cut)
      return cut
    },
    /** Estimated tokens of the snippets returned so far. */
    used: () => used,
  }
}
