/**
 * The snippet budget of one search answer (pure): at most `totalBytes` of UTF-8 across all
 * its snippets (MNEMO_SNIPPET_BYTES_PER_SEARCH, 64 KiB). Snippets are fitted in rank order,
 * so the best results keep theirs whole; the one that crosses the budget is cut to what is
 * left (at a character boundary, still an exact prefix of the snippet), and the ones after it
 * are empty. Every result stays in the answer with its path and line range, and the answer
 * says how many snippets were shortened: nothing is dropped without saying so.
 */

/** The longest prefix of `text` of whole code points that is at most `maxBytes` in UTF-8. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text
  let bytes = 0
  let end = 0
  for (const char of text) {
    const size = Buffer.byteLength(char)
    if (bytes + size > maxBytes) break
    bytes += size
    end += char.length
  }
  return text.slice(0, end)
}

export function createSnippetBudget(totalBytes: number) {
  let left = totalBytes
  let shortened = 0
  return {
    /** True once nothing is left: later snippets need not be built. */
    exhausted: () => left === 0,
    /** The snippet, or as much of it as the budget has left. */
    fit(snippet: string): string {
      const bytes = Buffer.byteLength(snippet)
      if (bytes <= left) {
        left -= bytes
        return snippet
      }
      const cut = truncateUtf8(snippet, left)
      left -= Buffer.byteLength(cut)
      shortened++
      return cut
    },
    /** Records a snippet left empty because the budget was spent. */
    skip(): void {
      shortened++
    },
    /** Snippets shortened or left empty so far. */
    shortened: () => shortened,
  }
}
