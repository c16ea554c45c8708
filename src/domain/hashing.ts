/** SHA-256 helpers: file identity for incremental sync and chunk identity for caches. */
import { hash } from 'node:crypto'

/**
 * Lowercase hex SHA-256 of a string (UTF-8) or bytes. The one-shot crypto.hash skips the
 * Hash object a createHash call builds, which is most of the cost for chunk-sized inputs.
 */
export function sha256(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex')
}
