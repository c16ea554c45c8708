/**
 * Provenance (SPEC §11, issue 31): every entry a write makes carries an origin. An agent
 * token writes `agent` unless it says `untrusted` or `system` (content it was handed, or the
 * service's); `owner` — the person responsible for the agent — needs the admin token or an
 * agent listed in MNEMO_OWNER_AGENTS. A write claiming more than its token allows is 403
 * PROVENANCE_FORBIDDEN with nothing written, whether it claims it in a request field or in a
 * metadata comment of the content it sends.
 */
import type { Origin } from '../domain/entry-meta.js'
import { appError } from '../shared/errors.js'
import { splitLines } from '../text/lines.js'
import { normalizeEntryText, scanEntries, type TextEntry } from './entry-text.js'

/** What a request may write: the origin it records by default (null: none), and whether it may claim `owner`. */
export type Writer = { origin: Origin | null; mayClaimOwner: boolean }

/** The admin (or a deployment without tokens): records no origin unless asked, may claim any. */
export const ADMIN_WRITER: Writer = { origin: null, mayClaimOwner: true }

const refused = () =>
  appError(
    'PROVENANCE_FORBIDDEN',
    'origin "owner" needs the admin token, or an agent listed in MNEMO_OWNER_AGENTS; nothing was written',
  )

/** The origin a write records: the one it claims, if its token allows it, else the writer's default. */
export function resolveOrigin(writer: Writer, claimed: Origin | undefined): Origin | null {
  if (claimed === 'owner' && !writer.mayClaimOwner) throw refused()
  return claimed ?? writer.origin
}

/** Counts of strings, to compare what a text holds with what the file held. */
function tally(items: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1)
  return counts
}

/** Whether every item of `next` is in `current`, as many times. */
function within(next: readonly string[], current: readonly string[]): boolean {
  const left = tally(current)
  for (const item of next) {
    const n = left.get(item) ?? 0
    if (n === 0) return false
    left.set(item, n - 1)
  }
  return true
}

/**
 * Refuses `next` (the content a write leaves, or appends) when it claims more than the
 * writer may, against `current` (what the file holds; null for an append):
 *
 * - an owner entry — its comment and its text, whitespace folded — that `current` does not
 *   hold, unless the writer may claim owner: an agent may move or drop its owner's entries,
 *   never add one or put other words under one;
 * - for a writer that records an origin (an agent token), a metadata comment `current` does
 *   not hold that names none: an agent's entries say they are its own (or untrusted, system).
 */
export function checkOwnerClaims(writer: Writer, next: string, current: string | null): void {
  if (writer.mayClaimOwner && writer.origin === null) return
  if (!next.includes('<!--')) return
  const entries = scanEntries(next).entries.filter((e) => e.meta !== null)
  if (entries.length === 0) return
  const before = current === null ? [] : scanEntries(current).entries.filter((e) => e.meta !== null)
  const lineOf = (text: string, e: TextEntry) => splitLines(text)[(e.metaLine as number) - 1] as string
  const owned = (text: string, list: TextEntry[]) =>
    list.filter((e) => e.meta?.origin === 'owner').map((e) => `${lineOf(text, e)}\n${normalizeEntryText(e.body)}`)
  if (!writer.mayClaimOwner && !within(owned(next, entries), current === null ? [] : owned(current, before))) {
    throw refused()
  }
  if (writer.origin === null) return
  const unnamed = entries.filter((e) => e.meta?.origin === null).map((e) => lineOf(next, e))
  if (!within(unnamed, current === null ? [] : before.map((e) => lineOf(current, e)))) {
    throw appError(
      'PROVENANCE_FORBIDDEN',
      'A metadata comment written with an agent token must name its origin (agent, untrusted or system); nothing was written',
    )
  }
}
