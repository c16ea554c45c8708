/**
 * PostgreSQL array literals built here (pure), sent as text parameters and cast in SQL
 * (`$4::text[]`), and int4 arrays in the binary format, sent as binary parameters. The driver's own encoding of a JS array escapes every element with two
 * regular-expression replaces and a concatenation, which was about a tenth of a cold
 * index's CPU time in this process (BENCHMARKS.md); here an element is copied as it is unless
 * it holds a quote or a backslash.
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

/** PostgreSQL's type oid of int4, which a binary int4[] names for its elements. */
const INT4_OID = 23

/**
 * An `int4[]` in PostgreSQL's binary array format (array_send's), which the driver sends as
 * a binary parameter (a Buffer) for a `$n::int4[]`: no literal to write here nor for the
 * server to parse. A chunk's term counts, hashes and checks are 640 integers a chunk, and
 * as literals they were the largest part of a cold index's encoding here (BENCHMARKS.md).
 * Every value must fit in 32 bits (writeInt32BE throws otherwise).
 */
export function int4Binary(values: ArrayLike<number>): Buffer {
  const n = values.length
  if (n === 0) {
    const empty = Buffer.alloc(12)
    empty.writeInt32BE(INT4_OID, 8)
    return empty
  }
  const buf = Buffer.allocUnsafe(20 + 8 * n)
  buf.writeInt32BE(1, 0) // dimensions
  buf.writeInt32BE(0, 4) // no NULL element
  buf.writeInt32BE(INT4_OID, 8)
  buf.writeInt32BE(n, 12)
  buf.writeInt32BE(1, 16) // the lower bound: arrays start at 1
  for (let i = 0, at = 20; i < n; i++, at += 8) {
    buf.writeInt32BE(4, at)
    buf.writeInt32BE(values[i] as number, at + 4)
  }
  return buf
}

/** A `bool[]` literal. */
export function boolArray(values: readonly boolean[]): string {
  let out = '{'
  for (let i = 0; i < values.length; i++) out += (i > 0 ? ',' : '') + (values[i] ? 't' : 'f')
  return `${out}}`
}
