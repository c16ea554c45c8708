/**
 * mnemo ids for OpenClaw's: an agent or user id in mnemo is 1 to 63 of a-z 0-9 _ -, starting
 * with a letter or digit. A sender id (a phone number, a Telegram id, an email) becomes one by
 * lower-casing it and replacing every other character with `-`; when that changes it (two
 * senders could then meet: `Ann` and `ann`, `+1 555` and `1-555`) or it is too long, a short
 * hash of the original is appended, so different senders never share a memory.
 */
import { createHash } from 'node:crypto'

const ID = /^[a-z0-9][a-z0-9_-]{0,62}$/
/** Characters of the hash appended to an id that had to change (48 bits). */
const HASH_CHARS = 12

export function mnemoId(raw: string): string {
  if (ID.test(raw)) return raw
  const hash = createHash('sha256').update(raw).digest('hex').slice(0, HASH_CHARS)
  const base = raw
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
    .slice(0, 63 - HASH_CHARS - 1)
  return base ? `${base}-${hash}` : hash
}
