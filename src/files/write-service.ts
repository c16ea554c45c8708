/**
 * The write API (SPEC §2): replace, append to and delete memory files. Only markdown the
 * path policy calls writable (MEMORY.md, memory/**, extra paths when configured) is
 * changed; everything else gets PATH_INVALID or PATH_READ_ONLY. Changes to one file are
 * serialised (a per-path lock held from the precondition check to the fsync), and a call
 * returns only after the change is indexed, so the caller can search for what it just
 * wrote. If indexing fails the change is still on disk (reported as indexed: false, and
 * the next sync indexes it): the file is the source of truth.
 */
import { createHash } from 'node:crypto'
import { sha256 } from '../domain/hashing.js'
import { appError, isAppError } from '../shared/errors.js'
import type { InFlight } from '../shared/in-flight.js'
import type { KeyedMutex } from '../shared/keyed-mutex.js'
import type { Logger } from '../shared/logger.js'
import { checkRelPath } from '../shared/safe-path.js'
import { countLines, countLinesIn, countNewlines, decodeText } from '../text/lines.js'
import { hasFlushMarker, hasNul, introducesMarker, REFUSED_MARKER, REFUSED_NUL } from './content-rules.js'
import {
  appendToFile,
  deleteFile,
  entryKind,
  readIfExists,
  replaceFile,
  withWriteTarget,
  type WritePort,
  type WriteTarget,
} from './file-writer.js'
import type { MemoryPaths } from './memory-paths.js'
import type { MakeFolder } from './workspace-fs.js'
import { preconditionHolds, type Precondition } from './preconditions.js'
import { checkOwnerClaims, type Writer } from './provenance.js'
import type { FileChange } from '../events/space-events.js'

export type WriteResult = {
  path: string
  sha256: string
  sizeBytes: number
  totalLines: number
  /** The lines this write produced: the whole file for a replace, the new lines for an append. */
  startLine: number
  endLine: number
  created: boolean
  indexed: boolean
}

export type WriteServiceDeps = {
  /** The workspace folder, named through its held descriptor (held-root.ts). */
  root: string
  memoryPaths: Pick<MemoryPaths, 'classify'>
  maxFileBytes: number
  locks: KeyedMutex
  inFlight: InFlight
  /** Indexes one file now (coalesced per path); resolves when the index has it. */
  reindexFile: (rel: string) => Promise<void>
  /** The file system calls writes make (tests inject failures). */
  port: WritePort
  /** Creates a folder a write needs (counted against the space's cap: folder-budget.ts). */
  makeFolder: MakeFolder
  log: Logger
  /** Told of each change once it is on disk, before it is indexed (GET /events). */
  onChange?: ((change: FileChange) => void) | undefined
}

/**
 * Bytes to add so that `text` starts on a new line of a file whose current content ends
 * with `tail` (its last bytes): nothing for an empty file or one ending in a newline.
 */
export const lineBreakBefore = (tail: Buffer | null): string =>
  tail && tail.length > 0 && tail[tail.length - 1] !== 0x0a ? '\n' : ''

/**
 * Indexes `rel` after a change and says whether it worked. A failure is logged and leaves
 * the change on disk, where the next sync finds it: the write itself stands.
 */
export async function indexWritten(
  deps: { reindexFile: (rel: string) => Promise<void>; log: Logger },
  rel: string,
): Promise<boolean> {
  try {
    await deps.reindexFile(rel)
    return true
  } catch (err) {
    // A refusal (the folder was replaced or moved meanwhile) is no fault of the service.
    const refused = isAppError(err) && err.statusCode < 500
    deps.log[refused ? 'warn' : 'error']({ err, path: rel }, 'indexing a written file failed; the next sync retries')
    return false
  }
}

/**
 * Longest name of a file the API writes, in bytes: its temp file adds 24 bytes
 * (`.<name>.<12 hex>.mnemo-tmp`) and must still fit the file system's 255.
 */
const MAX_WRITABLE_NAME_BYTES = 231

/** The checked workspace-relative path, or the error for a path the write API may not write. */
export function checkWritablePath(raw: string, memoryPaths: Pick<MemoryPaths, 'classify'>): string {
  const check = checkRelPath(raw)
  if (check.kind === 'invalid') throw appError('PATH_INVALID', `Invalid path: ${check.reason}`)
  const kind = memoryPaths.classify(check.rel)
  if (kind.kind === 'none') {
    throw appError('PATH_INVALID', 'Invalid path: only MEMORY.md and memory/**/*.md can be written')
  }
  if (kind.kind === 'sessions' || !kind.writable) throw appError('PATH_READ_ONLY')
  const name = check.rel.slice(check.rel.lastIndexOf('/') + 1)
  if (Buffer.byteLength(name) > MAX_WRITABLE_NAME_BYTES) {
    throw appError('PATH_INVALID', `Invalid path: a file name longer than ${MAX_WRITABLE_NAME_BYTES} bytes`)
  }
  return check.rel
}

function checkSize(sizeBytes: number, maxFileBytes: number): void {
  if (sizeBytes > maxFileBytes) {
    throw appError('PAYLOAD_TOO_LARGE', `The file would be larger than MNEMO_MAX_FILE_BYTES (${maxFileBytes})`)
  }
}

/**
 * What the content of a replace must be, whatever the file holds: no NUL, at most
 * `maxFileBytes`. Returns its bytes. (Flush markers depend on the file: put() checks them.)
 */
export function checkReplaceContent(content: string, maxFileBytes: number): Buffer {
  if (hasNul(content)) throw appError('VALIDATION_FAILED', REFUSED_NUL)
  const bytes = Buffer.from(content, 'utf8')
  checkSize(bytes.length, maxFileBytes)
  return bytes
}

/** What appended text must be, whatever the file holds: no flush marker, no NUL, and fit alone. */
export function checkAppendContent(content: string, maxFileBytes: number): void {
  if (hasFlushMarker(content)) throw appError('VALIDATION_FAILED', REFUSED_MARKER)
  if (hasNul(content)) throw appError('VALIDATION_FAILED', REFUSED_NUL)
  checkSize(Buffer.byteLength(content) + (content.endsWith('\n') ? 0 : 1), maxFileBytes)
}

/**
 * Throws what a write of `content` to a file that does not exist yet would be refused with:
 * checked before a write creates its agent, so a refused write creates nothing.
 */
export function checkNewFileWrite(mode: 'replace' | 'append', content: string, maxFileBytes: number): void {
  if (mode === 'append') return checkAppendContent(content, maxFileBytes)
  checkReplaceContent(content, maxFileBytes)
  if (introducesMarker(content, null)) throw appError('VALIDATION_FAILED', REFUSED_MARKER)
}

/** What an import did with one file: written new, written over, already that content, or kept as it was. */
export type RestoreOutcome = 'created' | 'replaced' | 'unchanged' | 'kept'

export function createWriteService(deps: WriteServiceDeps) {
  const writablePath = (raw: string) => checkWritablePath(raw, deps.memoryPaths)

  /** Runs `fn` on the file `rel` names, holding its lock; null when its folder is missing and `create` is off. */
  const locked = <T>(rel: string, create: boolean, fn: (target: WriteTarget | null) => Promise<T>) =>
    deps.locks.run(rel, () => withWriteTarget(deps.root, rel, create && deps.makeFolder, fn))

  function checkPrecondition(p: Precondition, current: Buffer | null): void {
    const currentSha256 = current && sha256(current)
    if (!preconditionHolds(p, currentSha256)) {
      throw appError('PRECONDITION_FAILED', undefined, { details: { currentSha256 } })
    }
  }

  const index = (rel: string) => indexWritten(deps, rel)

  /**
   * A write's locked part. When it fails once it began changing the file (`changing()`),
   * the file is indexed as it is now before the error goes on: a failed append is undone but
   * a sync may have read it half written meanwhile, and a rename or unlink may be done when
   * the folder's fsync after it fails.
   */
  async function lockedChange<T>(
    rel: string,
    create: boolean,
    fn: (target: WriteTarget | null, changing: () => void) => Promise<T>,
  ): Promise<T> {
    let changed = false
    try {
      return await locked(rel, create, (target) => fn(target, () => (changed = true)))
    } catch (err) {
      if (changed) await index(rel)
      throw err
    }
  }

  /** Creates or replaces a file atomically; `writer` says which entry origins it may add (provenance.ts). */
  function put(raw: string, content: string, precondition: Precondition, writer: Writer): Promise<WriteResult> {
    const rel = writablePath(raw)
    const bytes = checkReplaceContent(content, deps.maxFileBytes)
    return deps.inFlight.run(async () => {
      const created = await lockedChange(rel, true, async (target, changing) => {
        const file = target as WriteTarget
        const current = await readIfExists(file)
        checkPrecondition(precondition, current)
        const currentText = current && decodeText(current)
        if (introducesMarker(content, currentText)) throw appError('VALIDATION_FAILED', REFUSED_MARKER)
        checkOwnerClaims(writer, content, currentText)
        changing()
        await replaceFile(file, bytes, deps.port)
        return current === null
      })
      const hash = sha256(bytes)
      deps.onChange?.({ kind: 'written', path: rel, sha256: hash, sizeBytes: bytes.length })
      const totalLines = countLines(content)
      const indexed = await index(rel)
      return {
        path: rel,
        sha256: hash,
        sizeBytes: bytes.length,
        totalLines,
        startLine: 1,
        endLine: totalLines,
        created,
        indexed,
      }
    })
  }

  /**
   * Appends whole lines: a newline is added before `content` when the file does not end
   * with one, and after it when `content` does not.
   */
  function append(raw: string, content: string, precondition: Precondition, writer: Writer): Promise<WriteResult> {
    const rel = writablePath(raw)
    checkAppendContent(content, deps.maxFileBytes)
    checkOwnerClaims(writer, content, null)
    return deps.inFlight.run(async () => {
      const written = await lockedChange(rel, true, async (target, changing) => {
        const file = target as WriteTarget
        const current = (await readIfExists(file)) ?? null
        checkPrecondition(precondition, current)
        const text = lineBreakBefore(current) + (content.endsWith('\n') ? content : `${content}\n`)
        const added = Buffer.from(text, 'utf8')
        checkSize((current?.length ?? 0) + added.length, deps.maxFileBytes)
        changing()
        await appendToFile(file, added, deps.port)
        // Counted and hashed in place: a day file of megabytes is not copied or decoded.
        const before = current ?? Buffer.alloc(0)
        return {
          startLine: countLinesIn(before) + 1,
          // `added` ends with a newline, so the file's lines are its newlines.
          totalLines: countNewlines(before) + countNewlines(added),
          sha256: createHash('sha256').update(before).update(added).digest('hex'),
          sizeBytes: before.length + added.length,
          created: current === null,
        }
      })
      deps.onChange?.({ kind: 'written', path: rel, sha256: written.sha256, sizeBytes: written.sizeBytes })
      const indexed = await index(rel)
      return {
        path: rel,
        sha256: written.sha256,
        sizeBytes: written.sizeBytes,
        totalLines: written.totalLines,
        startLine: written.startLine,
        endLine: written.totalLines,
        created: written.created,
        indexed,
      }
    })
  }

  /**
   * Changes a file in place: under its lock, reads it, checks the precondition, asks
   * `change` for the new text (null: leave the file as it is), replaces the file atomically
   * and indexes it. The edits that keep memory right (entry-service.ts) are made this way,
   * whole or not at all; what `change` writes is the service's own, checked by the caller.
   */
  function edit<T>(
    raw: string,
    precondition: Precondition,
    change: (text: string) => { text: string; result: T } | null,
  ): Promise<{
    path: string
    sha256: string
    sizeBytes: number
    totalLines: number
    indexed: boolean
    result: T
  } | null> {
    const rel = writablePath(raw)
    return deps.inFlight.run(async () => {
      const done = await lockedChange(rel, false, async (target, changing) => {
        const current = target && (await readIfExists(target))
        if (!target || !current) throw appError('FILE_NOT_FOUND')
        checkPrecondition(precondition, current)
        const changed = change(decodeText(current))
        if (!changed) return null
        const bytes = Buffer.from(changed.text, 'utf8')
        checkSize(bytes.length, deps.maxFileBytes)
        changing()
        await replaceFile(target, bytes, deps.port)
        return { bytes, text: changed.text, result: changed.result }
      })
      if (!done) return null
      const hash = sha256(done.bytes)
      deps.onChange?.({ kind: 'written', path: rel, sha256: hash, sizeBytes: done.bytes.length })
      const indexed = await index(rel)
      return {
        path: rel,
        sha256: hash,
        sizeBytes: done.bytes.length,
        totalLines: countLines(done.text),
        indexed,
        result: done.result,
      }
    })
  }

  /**
   * Checks what a write of `raw` under `precondition` would be refused for, writing nothing:
   * the path (PATH_INVALID, PATH_READ_ONLY) and the precondition against the file as it is
   * (412). For a write not made (a duplicate entry), so it answers as the write would have.
   */
  function verify(raw: string, precondition: Precondition): Promise<void> {
    const rel = writablePath(raw)
    return deps.inFlight.run(() =>
      locked(rel, false, async (target) => checkPrecondition(precondition, target && (await readIfExists(target)))),
    )
  }

  /** Deletes a file; its chunks leave the index before the call returns. */
  function remove(raw: string, precondition: Precondition): Promise<{ path: string; indexed: boolean }> {
    const rel = writablePath(raw)
    return deps.inFlight.run(async () => {
      await lockedChange(rel, false, async (target, changing) => {
        const kind = target ? await entryKind(target) : 'missing'
        if (!target || kind === 'missing') throw appError('FILE_NOT_FOUND')
        if (kind === 'other') throw appError('PATH_INVALID', 'Invalid path: not a regular file')
        // Only a condition needs the content: a hard link is deleted without being read
        // (removing a link never changes the file it shares).
        const conditional = precondition.ifMatch !== null || precondition.ifNoneMatch
        if (conditional) checkPrecondition(precondition, await readIfExists(target))
        changing()
        await deleteFile(target, deps.port)
      })
      deps.onChange?.({ kind: 'deleted', path: rel })
      return { path: rel, indexed: await index(rel) }
    })
  }

  /**
   * Writes a file from an archive (POST /import) atomically, as put() does, with its
   * modification time (ms since the epoch) from the archive. The content was checked by the
   * caller (UTF-8, no NUL, size); flush markers are kept: they are the service's own and came
   * from an export. `keep`: an existing file is left as it is. Indexed before it resolves.
   * `previous`: what the file held before (null: it did not exist), for revert().
   * `changing` hears it too, before the file is changed: a restore that fails after its
   * rename (the folder's fsync) has replaced the file all the same, and the caller's undo
   * must know what to put back.
   */
  function restore(
    raw: string,
    bytes: Buffer,
    opts: { keep: boolean; mtimeMs: number; changing?: (previous: Buffer | null) => void },
  ): Promise<{ path: string; outcome: RestoreOutcome; indexed: boolean; previous: Buffer | null }> {
    const rel = writablePath(raw)
    checkSize(bytes.length, deps.maxFileBytes)
    return deps.inFlight.run(async () => {
      const done = await lockedChange(rel, true, async (target, changing) => {
        const file = target as WriteTarget
        const previous = await readIfExists(file)
        const outcome = ((): RestoreOutcome | null => {
          if (previous && opts.keep) return 'kept'
          return previous?.equals(bytes) ? 'unchanged' : null
        })()
        if (outcome) return { outcome, previous }
        changing()
        opts.changing?.(previous)
        await replaceFile(file, bytes, deps.port, opts.mtimeMs)
        return { outcome: previous === null ? ('created' as const) : ('replaced' as const), previous }
      })
      const written = done.outcome === 'created' || done.outcome === 'replaced'
      return { path: rel, ...done, indexed: written ? await index(rel) : true }
    })
  }

  /**
   * Undoes a restore() that wrote `wrote`: puts `previous` back, or deletes the file it
   * created. A file changed since (another write) is left as it is now. Folders the restore
   * created stay here (the import removes those that are empty again: folder-budget.ts).
   */
  function revert(raw: string, wrote: Buffer, previous: Buffer | null): Promise<void> {
    const rel = writablePath(raw)
    return deps.inFlight.run(async () => {
      await locked(rel, false, async (target) => {
        const current = target && (await readIfExists(target))
        if (!target || !current?.equals(wrote)) return
        if (previous === null) await deleteFile(target, deps.port)
        else await replaceFile(target, previous, deps.port)
      })
      await index(rel)
    })
  }

  return { put, append, edit, verify, remove, restore, revert }
}

export type WriteService = ReturnType<typeof createWriteService>
