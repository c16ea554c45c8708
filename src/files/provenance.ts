/**
 * Provenance (SPEC §11, issue 31): every entry a write makes carries an origin. An agent
 * token writes `agent` unless it says `untrusted` or `system` (content it was handed, or the
 * service's); `owner` — the person responsible for the agent — needs the admin token or an
 * agent listed in MNEMO_OWNER_AGENTS. A write claiming more than its token allows is 403
 * PROVENANCE_FORBIDDEN with nothing written, whether it claims it in a request field or in a
 * metadata comment of the content it sends.
 */
import { parseEntryMeta, type Origin } from '../domain/entry-meta.js'
import { appError } from '../shared/errors.js'
import { splitLines } from '../text/lines.js'

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

/** Metadata comment lines of `text` that claim origin owner, as they are written. */
function ownerClaims(text: string): string[] {
  if (!text.includes('owner')) return []
  return splitLines(text).filter((line) => {
    const parsed = line.includes('<!--') ? parseEntryMeta(line) : null
    return parsed?.kind === 'meta' && parsed.meta.origin === 'owner'
  })
}

/**
 * Refuses `next` (the content a write leaves, or appends) when it holds an owner claim
 * `current` (what the file holds; null for an append) does not, and the writer may not make
 * one. Claims already in the file may stay: an agent may edit around its owner's entries.
 */
export function checkOwnerClaims(writer: Writer, next: string, current: string | null): void {
  if (writer.mayClaimOwner) return
  const claims = ownerClaims(next)
  if (claims.length === 0) return
  const kept = new Map<string, number>()
  for (const line of ownerClaims(current ?? '')) kept.set(line, (kept.get(line) ?? 0) + 1)
  for (const line of claims) {
    const left = kept.get(line) ?? 0
    if (left === 0) throw refused()
    kept.set(line, left - 1)
  }
}
