/**
 * PostgreSQL array literals built here (pure), sent as text parameters and cast in SQL
 * (`$4::text[]`). The driver's own encoding of a JS array escapes every element with two
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

/** A `bool[]` literal. */
export function boolArray(values: readonly boolean[]): string {
  let out = '{'
  for (let i = 0; i < values.length; i++) out += (i > 0 ? ',' : '') + (values[i] ? 't' : 'f')
  return `${out}}`
}
