/**
 * Chunks as the parameters of a PostgreSQL chunk INSERT (pure): every column an array
 * (array-literal.ts), one element per chunk, so one statement writes the chunks of a whole
 * batch of files, each row with its file's path and source. A row's term keys and counts
 * come from its ChunkTerms (write-terms.ts): the keys and counts of all the chunks as flat
 * binary arrays the statement slices at each row's offset (a row's counts are
 * `{body,heading,...}` in its keys' order). The keys depend on the index (term-hash.ts), so they are made for the index
 * the rows go to (`keys`), from hashes computed once whatever the index.
 */
import type { ChunkInput, FileRecord } from '../../domain/chunks.js'
import { boolArray, int4Binary, int8KeysBinary, intArray, textArray, textBinary } from './array-literal.js'
import type { ChunkTerms, WriteTerms } from './write-terms.js'

/** A chunk to insert, with its file and its terms. */
export type PlacedChunk = { chunk: ChunkInput; file: FileRecord; terms: ChunkTerms }

export type ChunkColumns = {
  /** index-writes.ts's chunk INSERT's parameters $2 to $21. */
  params: (string | Buffer)[]
  /** Its $22: the rows' term keys in the index `indexId`, as one flat `int8[]`. */
  keys: (indexId: number) => Buffer
}

/**
 * The parameters in the order of index-writes.ts's chunk INSERT: the text and count columns
 * as binary arrays (array-literal.ts), the few small ones as literals; `unique` false: two
 * of the row's terms share a termHash, and the statement sorts its keys.
 */
export function chunkColumns(placed: readonly PlacedChunk[], terms: WriteTerms): ChunkColumns {
  let total = 0
  for (const p of placed) total += p.terms.slots.length
  const counts = new Int32Array(2 * total)
  const hashes = new Int32Array(total)
  const checks = new Int32Array(total)
  const offsets = new Int32Array(placed.length)
  const sizes = new Int32Array(placed.length)
  let at = 0
  placed.forEach(({ terms: row }, r) => {
    offsets[r] = at
    sizes[r] = row.slots.length
    for (let i = 0; i < row.slots.length; i++, at++) {
      const s = row.slots[i] as number
      counts[2 * at] = row.body[i] as number
      counts[2 * at + 1] = row.heading[i] as number
      hashes[at] = terms.hashes[s] as number
      checks[at] = terms.checks[s] as number
    }
  })
  const chunks = placed.map((p) => p.chunk)
  return {
    params: [
      textBinary(placed.map((p) => p.file.path)),
      textBinary(placed.map((p) => p.file.source)),
      intArray(chunks.map((x) => x.startLine)),
      intArray(chunks.map((x) => x.endLine)),
      textBinary(chunks.map((x) => x.text)),
      textBinary(chunks.map((x) => x.headings)),
      textBinary(chunks.map((x) => x.contentHash)),
      textBinary(chunks.map((x) => x.bodyTerms)),
      textBinary(chunks.map((x) => x.headingTerms)),
      intArray(chunks.map((x) => x.tokenCount)),
      int4Binary(counts),
      intArray(offsets),
      intArray(sizes),
      boolArray(placed.map((p) => p.terms.unique)),
      intArray(chunks.map((x) => x.datedMs)),
      textArray(chunks.map((x) => x.entry?.status ?? null)),
      textArray(chunks.map((x) => x.entry?.observed ?? null)),
      textArray(chunks.map((x) => x.entry?.key ?? null)),
      textArray(chunks.map((x) => x.entry?.origin ?? null)),
      textArray(chunks.map((x) => x.entryHash ?? null)),
    ],
    keys: (indexId) => int8KeysBinary(hashes, checks, indexId),
  }
}
