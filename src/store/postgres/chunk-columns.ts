/**
 * Chunks as the parameters of a PostgreSQL chunk INSERT (pure): every column an array
 * (array-literal.ts), one element per chunk. A row's terms, counts, hashes and
 * checks come from its ChunkTerms (write-terms.ts): its terms space-separated without the
 * index's prefix (the statement adds it), and the counts, hashes and checks of all the
 * chunks as flat binary int4 arrays the statement slices at each row's offset (a row's counts
 * are `{body,heading,...}` in its terms' order); `unique` false: the row keeps no hashes,
 * and its terms are found by a scan (read-sql.ts termSlot).
 */
import type { ChunkInput } from '../../domain/chunks.js'
import { boolArray, int4Binary, intArray, textArray, textBinary } from './array-literal.js'
import type { ChunkTerms, WriteTerms } from './write-terms.js'

/**
 * The parameters in the order of index-writes.ts's chunk INSERT ($4 to $24): the text, term
 * and count columns as binary arrays (array-literal.ts), the few small ones as literals.
 */
export function chunkColumns(
  chunks: readonly ChunkInput[],
  rows: readonly ChunkTerms[],
  terms: WriteTerms,
): (string | Buffer)[] {
  let total = 0
  for (const row of rows) total += row.slots.length
  const counts = new Int32Array(2 * total)
  const hashes = new Int32Array(total)
  const checks = new Int32Array(total)
  const offsets = new Int32Array(rows.length)
  const sizes = new Int32Array(rows.length)
  const keys: string[] = []
  const words: string[] = []
  let at = 0
  rows.forEach((row, r) => {
    offsets[r] = at
    sizes[r] = row.slots.length
    words.length = row.slots.length
    for (let i = 0; i < row.slots.length; i++, at++) {
      const s = row.slots[i] as number
      words[i] = terms.terms[s] as string
      counts[2 * at] = row.body[i] as number
      counts[2 * at + 1] = row.heading[i] as number
      hashes[at] = terms.hashes[s] as number
      checks[at] = terms.checks[s] as number
    }
    keys.push(words.join(' '))
  })
  return [
    intArray(chunks.map((x) => x.startLine)),
    intArray(chunks.map((x) => x.endLine)),
    textBinary(chunks.map((x) => x.text)),
    textBinary(chunks.map((x) => x.headings)),
    textBinary(chunks.map((x) => x.contentHash)),
    textBinary(chunks.map((x) => x.bodyTerms)),
    textBinary(chunks.map((x) => x.headingTerms)),
    intArray(chunks.map((x) => x.tokenCount)),
    textBinary(keys),
    int4Binary(counts),
    int4Binary(hashes),
    int4Binary(checks),
    intArray(offsets),
    intArray(sizes),
    boolArray(rows.map((r) => r.unique)),
    intArray(chunks.map((x) => x.datedMs)),
    textArray(chunks.map((x) => x.entry?.status ?? null)),
    textArray(chunks.map((x) => x.entry?.observed ?? null)),
    textArray(chunks.map((x) => x.entry?.key ?? null)),
    textArray(chunks.map((x) => x.entry?.origin ?? null)),
    textArray(chunks.map((x) => x.entryHash ?? null)),
  ]
}
