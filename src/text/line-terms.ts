/**
 * A chunk's body terms line by line (pure): the terms indexTokens gives for each line of the
 * text (splitLines's lines), separated by spaces within a line and by a newline between
 * lines. FTS5 and every term scan split on both (term-count.ts), so the index sees the same
 * terms as from one space-separated string; the newlines let a search find the lines a query
 * term is on without analysing the text again (search/snippet.ts).
 *
 * Rows written before the newlines were added hold the same terms space-separated: for a
 * text of more than one line they have too few newlines, and are analysed as before.
 */
import { indexTokens } from './analyzer.js'
import { splitLines } from './lines.js'
import { wholeTermAt } from './term-count.js'

/** `text`'s body terms by line, and how many terms they are. */
export function lineTermString(text: string): { terms: string; count: number } {
  let count = 0
  const lines = splitLines(text).map((line) => {
    const terms = indexTokens(line)
    count += terms.length
    return terms.join(' ')
  })
  return { terms: lines.join('\n'), count }
}

/**
 * For each line of a text of `lineCount` lines, how many of `terms` it holds, from its body
 * terms by line (lineTermString); null when `lineTerms` is not by line for that many lines
 * (a row written before, or a text it was not made from).
 */
export function termsPerLine(lineTerms: string, lineCount: number, terms: Iterable<string>): Int32Array | null {
  const breaks: number[] = []
  for (let at = lineTerms.indexOf('\n'); at !== -1; at = lineTerms.indexOf('\n', at + 1)) breaks.push(at)
  if (lineCount < 1 || breaks.length !== lineCount - 1) return null
  const coverage = new Int32Array(lineCount)
  for (const term of terms) {
    if (term === '') continue
    let line = 0
    let counted = -1
    for (let at = wholeTermAt(lineTerms, term, 0); at >= 0; at = wholeTermAt(lineTerms, term, at + term.length)) {
      while (line < breaks.length && (breaks[line] as number) < at) line++
      if (line !== counted) {
        coverage[line] = (coverage[line] as number) + 1
        counted = line
      }
    }
  }
  return coverage
}
