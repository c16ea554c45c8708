/**
 * What replacing a file's chunk rows takes, on either engine: rows whose chunk is unchanged
 * stay (with their terms and vectors), so an append to a long day file writes its last
 * chunks, not the whole file again.
 */

import { entryTag } from '../domain/chunks.js'
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
  // By content hash, the chunk's own string: no key is built per row.
  const byHash = new Map<string, S[]>()
  for (const row of stored) {
    const hash = identity(row).contentHash
    const same = byHash.get(hash)
    if (same) same.push(row)
    else byHash.set(hash, [row])
  }
  const added: C[] = []
  for (const c of chunks) {
    const same = byHash.get(c.contentHash)
    const tag = entryTag(c.entry, c.entryHash)
    const at =
      same?.findIndex((row) => {
        const id = identity(row)
        return id.startLine === c.startLine && id.endLine === c.endLine && entryTag(id.entry, id.entryHash) === tag
      }) ?? -1
    if (at === -1) added.push(c)
    else same?.splice(at, 1)
  }
  const removed = [...byHash.values()].flat()
  return { added, removed }
}
