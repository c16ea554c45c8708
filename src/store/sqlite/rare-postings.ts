/**
 * A rare term's postings as the rare lists keep them (rare-lists.ts; pure): for each chunk
 * holding the term, by increasing id, four LEB128 varints (7 bits a byte, low bits first):
 * the id's distance from the previous posting's (from 0 for the first), the term's count in
 * the chunk's body, its count in the headings and path, and the chunk's length in analysed
 * terms (FTS5's row size). About 5 bytes a posting (BENCHMARKS.md, issue 35).
 */

/** One chunk holding the term. */
export type RarePosting = { id: number; body: number; heading: number; tokens: number }

function put(out: number[], value: number): void {
  let v = value
  while (v >= 128) {
    out.push((v & 127) | 128)
    v = Math.floor(v / 128)
  }
  out.push(v)
}

/** `postings`, by increasing id, as a blob. */
export function encodePostings(postings: readonly RarePosting[]): Uint8Array {
  const out: number[] = []
  let previous = 0
  for (const p of postings) {
    if (p.id <= previous) throw new Error(`postings must be by increasing id: ${p.id} after ${previous}`)
    put(out, p.id - previous)
    put(out, p.body)
    put(out, p.heading)
    put(out, p.tokens)
    previous = p.id
  }
  return Uint8Array.from(out)
}

/**
 * Calls `take` with each posting of `blob` in order, as numbers: a search decodes about a
 * thousand postings (issue 35), and an object each would cost more than ranking them.
 */
export function forEachPosting(
  blob: Uint8Array,
  take: (id: number, body: number, heading: number, tokens: number) => void,
): void {
  const end = blob.length
  let at = 0
  let id = 0
  const next = (): number => {
    let value = 0
    let scale = 1
    for (;;) {
      const byte = blob[at++] as number
      value += (byte & 127) * scale
      if (byte < 128) return value
      scale *= 128
    }
  }
  while (at < end) {
    id += next()
    const body = next()
    const heading = next()
    take(id, body, heading, next())
  }
}
