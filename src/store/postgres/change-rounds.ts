/**
 * One FileChanges as rounds that each name a path at most once (pure). PostgreSQL writes a
 * round's files together, a statement per step for all of them (index-writes.ts), which is
 * right only while no two of them are the same file: a change applies file by file, in the
 * order replace, touch, remove, each against what the ones before it left. A path named
 * again starts a new round, so rounds in order leave what that sequence leaves. A sync
 * pass names each file once: its batches are one round.
 */
import type { FileRecord } from '../../domain/chunks.js'
import type { FileChanges, FileRows, Removal } from '../port.js'

/** Changes that name each path at most once. */
export type Round = { replace: FileRows[]; touch: FileRecord[]; remove: Removal[] }

export function changeRounds(changes: FileChanges): Round[] {
  const rounds: Round[] = []
  let seen = new Set<string>()
  const roundFor = (path: string) => {
    if (rounds.length === 0 || seen.has(path)) {
      rounds.push({ replace: [], touch: [], remove: [] })
      seen = new Set()
    }
    seen.add(path)
    return rounds[rounds.length - 1] as Round
  }
  for (const f of changes.replace ?? []) roundFor(f.record.path).replace.push(f)
  for (const f of changes.touch ?? []) roundFor(f.path).touch.push(f)
  for (const r of changes.remove ?? []) roundFor(r.path).remove.push(r)
  return rounds
}
