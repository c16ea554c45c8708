/** SHA-256 helpers: file identity for incremental sync and chunk identity for caches. */
import { createHash } from 'node:crypto'

/** Lowercase hex SHA-256 of a string (UTF-8) or bytes. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}
