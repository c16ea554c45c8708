/**
 * Conditional writes (RFC 9110 §13.1.1–2) with the file's SHA-256 as its entity tag.
 * `If-Match: <sha256>` (quoted or bare, several separated by commas) lets a write through
 * only when the file exists with one of those hashes; `If-Match: *` only when it exists;
 * `If-None-Match: *` only when it does not (create, never overwrite).
 */
export type Precondition = { ifMatch: '*' | string[] | null; ifNoneMatch: boolean }

export type PreconditionParse = { kind: 'ok'; value: Precondition } | { kind: 'invalid'; reason: string }

const SHA256 = /^[0-9a-f]{64}$/

/** The ETag header value for a file's hash. */
export const etagOf = (sha256: string): string => `"${sha256}"`

export function parsePreconditions(ifMatch: string | undefined, ifNoneMatch: string | undefined): PreconditionParse {
  if (ifNoneMatch !== undefined && ifNoneMatch.trim() !== '*') {
    return { kind: 'invalid', reason: 'If-None-Match supports only "*" (create only when the file does not exist)' }
  }
  if (ifMatch === undefined) return { kind: 'ok', value: { ifMatch: null, ifNoneMatch: ifNoneMatch !== undefined } }
  const tags = ifMatch
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
  if (tags.length === 1 && tags[0] === '*') {
    return { kind: 'ok', value: { ifMatch: '*', ifNoneMatch: ifNoneMatch !== undefined } }
  }
  const hashes: string[] = []
  for (const tag of tags) {
    const bare = tag.startsWith('"') && tag.endsWith('"') && tag.length >= 2 ? tag.slice(1, -1) : tag
    const hash = bare.toLowerCase()
    if (!SHA256.test(hash)) return { kind: 'invalid', reason: 'If-Match must be "*" or SHA-256 hashes of the file' }
    hashes.push(hash)
  }
  if (hashes.length === 0) return { kind: 'invalid', reason: 'If-Match is empty' }
  return { kind: 'ok', value: { ifMatch: hashes, ifNoneMatch: ifNoneMatch !== undefined } }
}

/** Whether a write may proceed given the file's current hash (null: no file). */
export function preconditionHolds(p: Precondition, currentSha256: string | null): boolean {
  if (p.ifNoneMatch && currentSha256 !== null) return false
  if (p.ifMatch === null) return true
  if (currentSha256 === null) return false
  return p.ifMatch === '*' || p.ifMatch.includes(currentSha256)
}
