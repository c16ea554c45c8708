/**
 * A chunk made of analysed terms, for engine tests that build an index without the
 * analyzer: its text is its body terms, its headings its heading terms, one line long.
 */
import type { ChunkInput } from '../../src/domain/chunks.js'

export function termChunk(line: number, body: readonly string[], heading: readonly string[]): ChunkInput {
  return {
    startLine: line,
    endLine: line,
    text: body.join(' '),
    headings: heading.join(' '),
    contentHash: `h${line}`,
    bodyTerms: body.join(' '),
    headingTerms: heading.join(' '),
    tokenCount: body.length + heading.length,
    datedMs: null,
    entry: null,
  }
}
