/**
 * Entry metadata (issue 31, SPEC §11), in OpenClaw's format: a comment line before an entry,
 *
 *   <!-- observed: 2026-07-27 | status: active | key: reply-style | origin: agent -->
 *
 * fields `name: value` with ` | ` between them (spaces optional), any subset, in any order, unknown ones kept
 * as they are. It opens an entry that runs to the next metadata comment, heading or flush
 * entry (indexing/chunker.ts). A comment that names a known field with a value it cannot
 * take (a status "maybe", a date "last week") is malformed: it is text like any other line,
 * and indexing warns about it. A comment naming no known field (`<!-- TODO -->`) is not
 * metadata at all.
 */

export const ENTRY_STATUSES = ['active', 'superseded'] as const
export type EntryStatus = (typeof ENTRY_STATUSES)[number]

/**
 * Where an entry came from: its owner (the person responsible for the agent), the agent
 * itself, content the agent was handed and does not vouch for, or the service.
 */
export const ORIGINS = ['owner', 'agent', 'untrusted', 'system'] as const
export type Origin = (typeof ORIGINS)[number]

/** What an entry's metadata says; `extra`: unknown fields, in order, kept for writing back. */
export type EntryMeta = {
  status: EntryStatus
  /** YYYY-MM-DD, or null when not given. */
  observed: string | null
  /** A fact's lineage: a later entry with the same key supersedes it. */
  key: string | null
  origin: Origin | null
  extra: readonly (readonly [name: string, value: string])[]
}

/** What a chunk carries of its entry: the metadata without unknown fields. */
export type ChunkEntry = Pick<EntryMeta, 'status' | 'observed' | 'key' | 'origin'>

/** Longest key, in characters: a name for a fact, not a text. */
export const MAX_KEY_CHARS = 200

/**
 * A comment on a line of its own: `<!--`, the inside, `-->`. `s`: a line may hold U+2028 and
 * the like (only `\n` ends a line here), and `.` must match them too.
 */
const COMMENT = /^ {0,3}<!--(.*)-->\s*$/s
const FIELD = /^([A-Za-z][\w-]*):\s*(.*)$/s
/** What no key may hold: control characters and Unicode line and paragraph separators. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const NOT_IN_KEY = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const KNOWN = new Set(['observed', 'status', 'key', 'origin'])

/** A calendar date written YYYY-MM-DD (2026-02-30 is not one). */
export function isIsoDate(text: string): boolean {
  const m = DATE.exec(text)
  if (!m) return false
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  return d.toISOString().slice(0, 10) === text
}

/** Whether a key can be written in a comment and read back the same. */
export const isValidKey = (key: string): boolean =>
  key.length > 0 &&
  key.length <= MAX_KEY_CHARS &&
  key === key.trim() &&
  !key.includes('|') &&
  !key.includes('-->') &&
  !NOT_IN_KEY.test(key)

export type ParsedMeta = { kind: 'meta'; meta: EntryMeta } | { kind: 'malformed'; reason: string } | { kind: 'none' }

/**
 * What a line is: entry metadata, a malformed attempt at it, or neither (any other line,
 * including a comment that names no known field).
 */
export function parseEntryMeta(line: string): ParsedMeta {
  if (!line.includes('<!--')) return { kind: 'none' }
  const comment = COMMENT.exec(line)
  if (!comment) return { kind: 'none' }
  const parts = (comment[1] as string).trim().split(/\s*\|\s*/)
  const fields: [string, string][] = []
  for (const part of parts) {
    const field = FIELD.exec(part.trim())
    if (!field) return { kind: 'none' }
    fields.push([(field[1] as string).toLowerCase(), (field[2] ?? '').trim()])
  }
  if (!fields.some(([name]) => KNOWN.has(name))) return { kind: 'none' }
  const meta: { status: EntryStatus; observed: string | null; key: string | null; origin: Origin | null } = {
    status: 'active',
    observed: null,
    key: null,
    origin: null,
  }
  const extra: [string, string][] = []
  const seen = new Set<string>()
  for (const [name, value] of fields) {
    if (KNOWN.has(name) && seen.has(name)) return { kind: 'malformed', reason: `"${name}" is given twice` }
    seen.add(name)
    switch (name) {
      case 'status':
        if (!(ENTRY_STATUSES as readonly string[]).includes(value)) {
          return { kind: 'malformed', reason: `status "${value}" is not one of ${ENTRY_STATUSES.join(', ')}` }
        }
        meta.status = value as EntryStatus
        break
      case 'observed':
        if (!isIsoDate(value)) return { kind: 'malformed', reason: `observed "${value}" is not a date (YYYY-MM-DD)` }
        meta.observed = value
        break
      case 'key':
        if (!isValidKey(value)) return { kind: 'malformed', reason: `key "${value.slice(0, 40)}" is empty or too long` }
        meta.key = value
        break
      case 'origin':
        if (!(ORIGINS as readonly string[]).includes(value)) {
          return { kind: 'malformed', reason: `origin "${value}" is not one of ${ORIGINS.join(', ')}` }
        }
        meta.origin = value as Origin
        break
      default:
        extra.push([name, value])
    }
  }
  return { kind: 'meta', meta: { ...meta, extra } }
}

/**
 * The comment line for `meta`: observed, status, key, origin (those set), then the unknown
 * fields as they were. parseEntryMeta reads it back the same.
 */
export function formatEntryMeta(meta: EntryMeta): string {
  const fields: string[] = []
  if (meta.observed !== null) fields.push(`observed: ${meta.observed}`)
  fields.push(`status: ${meta.status}`)
  if (meta.key !== null) fields.push(`key: ${meta.key}`)
  if (meta.origin !== null) fields.push(`origin: ${meta.origin}`)
  for (const [name, value] of meta.extra) fields.push(value === '' ? `${name}:` : `${name}: ${value}`)
  return `<!-- ${fields.join(' | ')} -->`
}
