/**
 * PostgreSQL arrays built here (pure): literals, sent as text parameters and cast in SQL
 * (`$4::text[]`), and int4 and text arrays in the binary format, sent as binary parameters.
 * The driver's own encoding of a JS array escapes every element with two regular-expression
 * replaces and a concatenation, which was about a tenth of a cold index's CPU time in this
 * process (BENCHMARKS.md); in a literal here an element is copied as it is unless it holds a
 * quote or a backslash.
 */

const NEEDS_ESCAPE = /["\\]/

/** One quoted element: `"` and `\` escaped with a backslash, as array_in reads them. */
function quoted(value: string): string {
  return NEEDS_ESCAPE.test(value) ? `"${value.replace(/["\\]/g, '\\$&')}"` : `"${value}"`
}

/** A `text[]` literal; null elements are NULL. */
export function textArray(values: readonly (string | null)[]): string {
  let out = '{'
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as string | null
    if (i > 0) out += ','
    out += v === null ? 'NULL' : quoted(v)
  }
  return `${out}}`
}

/** An integer array literal (`int4[]`, `int8[]`); null elements are NULL. */
export function intArray(values: readonly (number | null)[] | Int32Array): string {
  // join() writes the numbers natively, but writes null as nothing.
  if (values instanceof Int32Array || !values.includes(null)) return `{${values.join(',')}}`
  return `{${values.map((v) => (v === null ? 'NULL' : String(v))).join(',')}}`
}

/**
 * A `float8[]` or integer array literal of numbers: each as JavaScript writes it, the
 * shortest text that reads back as the same double (float8in reads it exactly).
 */
export const numberArray = (values: readonly number[]): string => `{${values.join(',')}}`

/** PostgreSQL's type oids of int8, int4 and text, which a binary array names for its elements. */
const INT8_OID = 20
const INT4_OID = 23
const TEXT_OID = 25

/**
 * A one-dimensional array's header in PostgreSQL's binary array format (array_send's): its
 * dimensions, whether it holds a NULL, its elements' type, then its length and lower bound
 * (1, as arrays start); an empty array has no dimension. Returns where the elements start.
 */
function header(view: DataView, n: number, nulls: boolean, oid: number): number {
  view.setInt32(0, n === 0 ? 0 : 1)
  view.setInt32(4, nulls ? 1 : 0)
  view.setInt32(8, oid)
  if (n === 0) return 12
  view.setInt32(12, n)
  view.setInt32(16, 1)
  return 20
}

const viewOf = (buf: Buffer) => new DataView(buf.buffer, buf.byteOffset, buf.byteLength)

/**
 * An `int4[]` in PostgreSQL's binary array format, which the driver sends as a binary
 * parameter (a Buffer) for a `$n::int4[]`: no literal to write here nor for the server to
 * parse. A chunk's term counts, hashes and checks are 640 integers a chunk, and as literals
 * they were the largest part of a cold index's encoding here (BENCHMARKS.md). An Int32Array,
 * so every value is one: checking numbers one by one cost twice the writing.
 */
export function int4Binary(values: Int32Array): Buffer {
  const n = values.length
  const buf = Buffer.allocUnsafe(20 + 8 * n)
  const view = viewOf(buf)
  let at = header(view, n, false, INT4_OID)
  for (let i = 0; i < n; i++, at += 8) {
    view.setInt32(at, 4)
    view.setInt32(at + 4, values[i] as number)
  }
  return buf.subarray(0, at)
}

/**
 * The `int8[]` of term keys (term-hash.ts) in PostgreSQL's binary array format: each element
 * `high[i]` in its high 32 bits and `low[i]` xor `lowXor` in its low 32, written as the two
 * big-endian halves they are, so no 64-bit number is made here.
 */
export function int8KeysBinary(high: Int32Array, low: Int32Array, lowXor: number): Buffer {
  const n = high.length
  const buf = Buffer.allocUnsafe(20 + 12 * n)
  const view = viewOf(buf)
  let at = header(view, n, false, INT8_OID)
  for (let i = 0; i < n; i++, at += 12) {
    view.setInt32(at, 8)
    view.setInt32(at + 4, high[i] as number)
    view.setInt32(at + 8, (low[i] as number) ^ lowXor)
  }
  return buf.subarray(0, at)
}

/**
 * A `text[]` in PostgreSQL's binary array format (a Buffer, sent as a binary parameter for a
 * `$n::text[]`): each element's UTF-8 bytes after their length (-1: NULL), written straight
 * into the buffer, with nothing to quote or escape here nor to parse there. The texts, term
 * strings and keys of a batch of 250 chunks are about a megabyte, and as one literal each they
 * were strings made only to be copied into the driver's buffer.
 */
export function textBinary(values: readonly (string | null)[]): Buffer {
  let size = 20
  let nulls = false
  for (const v of values) {
    if (v === null) nulls = true
    // At most 3 UTF-8 bytes a UTF-16 unit (a surrogate pair is 2 units and 4 bytes).
    size += 4 + (v === null ? 0 : v.length * 3)
  }
  const buf = Buffer.allocUnsafe(size)
  const view = viewOf(buf)
  let at = header(view, values.length, nulls, TEXT_OID)
  for (const v of values) {
    if (v === null) {
      view.setInt32(at, -1)
      at += 4
      continue
    }
    const written = buf.write(v, at + 4, 'utf8')
    view.setInt32(at, written)
    at += 4 + written
  }
  return buf.subarray(0, at)
}

/** A `bool[]` literal. */
export function boolArray(values: readonly boolean[]): string {
  let out = '{'
  for (let i = 0; i < values.length; i++) out += (i > 0 ? ',' : '') + (values[i] ? 't' : 'f')
  return `${out}}`
}
