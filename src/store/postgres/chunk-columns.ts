/**
 * Chunks as the parameters of a PostgreSQL chunk INSERT (pure): every column an array
 * literal (array-literal.ts), one element per chunk. A row's terms, counts, hashes and
 * checks come from its ChunkTerms (write-terms.ts): its terms space-separated without the
 * index's prefix (the statement adds it), and the counts, hashes and checks of all the
 * chunks as flat binary int4 arrays the statement slices at each row's offset (a row's counts
 * are `{body,heading,...}` in its terms' order); `unique` false: the row keeps no hashes,
 * and its terms are found by a scan (read-sql.ts termSlot).
 */
import type { ChunkInput } from '../../domain/chunks.js'
import { boolArray, int4Binary, intArray, textArray } from './array-literal.js'
import type { ChunkTerms, WriteTerms } from './write-terms.js'

/**
 * The parameters in the order of index-writes.ts's chunk INSERT ($4 to $24): literals, and the
 * counts, hashes and checks as binary int4 arrays.
 */
export function chunkColumns(
  chunks: readonly ChunkInput[],
  rows: readonly ChunkTerms[],
  terms: WriteTerms,
): (string | Buffer)[] {
  const keys: string[] = []
  const counts: number[] = []
  const hashes: number[] = []
  const checks: number[] = []
  const offsets: number[] = []
  const sizes: number[] = []
  for (const row of rows) {
    offsets.push(hashes.length)
    sizes.push(row.slots.length)
    let key = ''
    for (let i = 0; i < row.slots.length; i++) {
      const s = row.slots[i] as number
      key += (i > 0 ? ' ' : '') + (terms.terms[s] as string)
      counts.push(row.body[i] as number, row.heading[i] as number)
      hashes.push(terms.hashes[s] as number)
      checks.push(terms.checks[s] as number)
    }
    keys.push(key)
  }
  return [
    intArray(chunks.map((x) => x.startLine)),
    intArray(chunks.map((x) => x.endLine)),
    textArray(chunks.map((x) => x.text)),
    textArray(chunks.map((x) => x.headings)),
    textArray(chunks.map((x) => x.contentHash)),
    textArray(chunks.map((x) => x.bodyTerms)),
    textArray(chunks.map((x) => x.headingTerms)),
    intArray(chunks.map((x) => x.tokenCount)),
    textArray(keys),
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
