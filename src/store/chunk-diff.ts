/**
 * What replacing a file's chunk rows takes, on either engine: rows whose chunk is unchanged
 * stay (with their terms and vectors), so an append to a long day file writes its last
 * chunks, not the whole file again.
 */

import type { ChunkEntry } from '../domain/entry-meta.js'

/**
 * What identifies a chunk's row: the same lines, content hash and entry make the same row
 * (its terms derive from them and the path; its entry columns are the entry's).
 */
export type ChunkIdentity = {
  startLine: number
  endLine: number
  contentHash: string
  entry: ChunkEntry | null
  entryHash?: string | null | undefined
}

/**
 * The new chunks that need rows and the stored rows left over. A file may hold equal
 * chunks (pieces of a repetitive long line): each stored row stands for one chunk.
 */
export function diffChunks<S, C extends ChunkIdentity>(
  stored: readonly S[],
  identity: (row: S) => ChunkIdentity,
  chunks: readonly C[],
): { added: C[]; removed: S[] } {
  // By content hash, the chunk's own string: no key is built per row, and each row's
  // identity is made once (an append to a long day file compares every row of it).
  const byHash = new Map<string, { row: S; id: ChunkIdentity }[]>()
  for (const row of stored) {
    const id = identity(row)
    const same = byHash.get(id.contentHash)
    if (same) same.push({ row, id })
    else byHash.set(id.contentHash, [{ row, id }])
  }
  const added: C[] = []
  for (const c of chunks) {
    const same = byHash.get(c.contentHash)
    const at =
      same?.findIndex(({ id }) => id.startLine === c.startLine && id.endLine === c.endLine && sameEntry(id, c)) ?? -1
    if (at === -1) added.push(c)
    else same?.splice(at, 1)
  }
  const removed = [...byHash.values()].flatMap((same) => same.map(({ row }) => row))
  return { added, removed }
}

/**
 * Whether a stored row's entry still stands for a chunk's: the same lines and text under
 * another status (an entry superseded in place) or in an entry of other text need the row
 * written again. A missing entry or hash is as an empty one.
 */
function sameEntry(a: ChunkIdentity, b: ChunkIdentity): boolean {
  const x = a.entry
  const y = b.entry
  return (
    (x?.status ?? '') === (y?.status ?? '') &&
    (x?.observed ?? '') === (y?.observed ?? '') &&
    (x?.key ?? '') === (y?.key ?? '') &&
    (x?.origin ?? '') === (y?.origin ?? '') &&
    (a.entryHash ?? '') === (b.entryHash ?? '')
  )
}
