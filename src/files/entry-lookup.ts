/**
 * What a write asks the index about entries (entry-service.ts), then checks in the files: the
 * active entry a new one would duplicate, and the active entries of a key it supersedes. The
 * index finds candidates by text hash or key (store/port.ts findEntries); the file, read
 * again, says where each entry is now and what its metadata is.
 */
import type { Origin } from '../domain/entry-meta.js'
import type { EntryChange } from '../events/space-events.js'
import { isAppError } from '../shared/errors.js'
import type { EntryLocation, EntryQuery } from '../store/port.js'
import { entryTextHash, overlaps, retireKey, scanEntries, type TextEntry } from './entry-text.js'
import type { Precondition } from './preconditions.js'
import type { WriteService } from './write-service.js'

/** Lines of a file. */
export type Location = { path: string; startLine: number; endLine: number }

export type EntryLookupDeps = {
  findEntries: (q: EntryQuery) => Promise<EntryLocation[]>
  /** A memory file's text; null when it is missing or cannot be read. */
  readText: (rel: string) => Promise<string | null>
  edit: WriteService['edit']
  onEntry?: ((change: EntryChange) => void) | undefined
}

const ANY: Precondition = { ifMatch: null, ifNoneMatch: false }

/**
 * Whether an entry stands for what a write would make: the same key when the write names one
 * (the same text under another key is another fact), the same origin when it records one
 * (the owner confirming what an agent was told is news).
 */
const sameAs = (e: TextEntry, like: { key: string | null; origin: Origin | null }) =>
  (like.key === null || e.meta?.key === like.key) && (like.origin === null || e.meta?.origin === like.origin)

export function createEntryLookup(deps: EntryLookupDeps) {
  /**
   * For each of `texts`, the active entry with its text (the first, by path), as its whole
   * lines; null when there is none. One lookup for all of them: a flush of thousands of
   * entries asks the index once. `ownFlush`: a flush id whose own entries do not count (its
   * retry).
   */
  async function duplicatesOf(
    texts: readonly string[],
    like: { key: string | null; origin: Origin | null },
    ownFlush?: string,
  ): Promise<(Location | null)[]> {
    const hashes = texts.map(entryTextHash)
    const wanted = [...new Set(hashes.filter((h): h is string => h !== null))]
    if (wanted.length === 0) return texts.map(() => null)
    const found = await deps.findEntries({ hashes: wanted })
    if (found.length === 0) return texts.map(() => null)
    const files = new Map<string, Promise<TextEntry[]>>()
    const entriesOf = (path: string) => {
      let entries = files.get(path)
      if (!entries) {
        entries = deps.readText(path).then((text) => (text === null ? [] : scanEntries(text).entries))
        files.set(path, entries)
      }
      return entries
    }
    const located = new Map<string, Location | null>()
    for (const hash of wanted) {
      let at: Location | null = null
      for (const loc of found.filter((l) => l.hash === hash)) {
        const entry = (await entriesOf(loc.path)).find(
          (e) =>
            e.hash === hash &&
            overlaps(e, loc) &&
            sameAs(e, like) &&
            !(ownFlush !== undefined && e.flush?.flushId === ownFlush),
        )
        if (entry) {
          at = { path: loc.path, startLine: entry.startLine, endLine: entry.endLine }
          break
        }
      }
      located.set(hash, at)
    }
    return hashes.map((h) => (h === null ? null : (located.get(h) ?? null)))
  }

  /**
   * Marks superseded every active entry keyed `key` but the one just written (told by its
   * text's hash, under the file's lock: lines may have moved since it was written); where
   * they were. Files the write API may not change (read-only extra paths) are left as they
   * are: the write this follows has landed, and its answer must say so.
   */
  async function retire(key: string, keepHash: string | null): Promise<Location[]> {
    const retired: Location[] = []
    const paths = new Set((await deps.findEntries({ key })).map((l) => l.path))
    for (const path of paths) {
      const done = await deps
        .edit(path, ANY, (text) => {
          const out = retireKey(text, key, (e) => keepHash !== null && e.hash === keepHash)
          return out && { text: out.text, result: out.retired }
        })
        .catch((err: unknown) => {
          if (isAppError(err) && err.statusCode < 500) return null
          throw err
        })
      for (const r of done?.result ?? []) {
        retired.push({ path, ...r })
        deps.onEntry?.({ kind: 'superseded', path, ...r })
      }
    }
    return retired
  }

  return { duplicatesOf, retire }
}
