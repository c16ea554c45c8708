/**
 * Export and import of markdown memory as tar archives (GET /export, POST /import). An
 * export lists each space's files first (after a sync, so files edited by hand are in it),
 * so an unknown agent is refused before a byte is sent, then streams them one file at a
 * time: memory holds one file, not the archive. An import reads and checks the whole
 * archive (read-archive.ts, archive-layout.ts) before it writes a file, so a bad entry
 * writes nothing; then it writes each file atomically through its space's write service
 * and indexes it, so the files are searchable when the call returns. The folders each
 * space would need are counted against MNEMO_MAX_FOLDERS_PER_AGENT before that too
 * (import-folders.ts), so an archive past the cap creates nothing. A write that fails
 * part-way (a full disk) undoes the files written before it, and the folders the import
 * made that are empty again.
 */
import type { Readable } from 'node:stream'
import tar from 'tar-stream'
import type { AgentRegistry } from '../agents/agent-registry.js'
import type { AgentSpace } from '../agents/agent-space.js'
import { PLAIN_LAYOUT, type SpaceView } from '../agents/empty-space.js'
import { surveyOfNothing, type FolderSurvey } from '../files/folder-budget.js'
import type { RestoreOutcome } from '../files/write-service.js'
import { MAIN_AGENT, userSpaceId } from '../shared/agent-id.js'
import { appError, isAppError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import type { ArchiveLayout, ArchiveScope, Owner } from './archive-layout.js'
import { foldersOf, planFolders } from './import-folders.js'
import { readArchive, type ArchiveFile, type ReadArchiveLimits } from './read-archive.js'
import { checkOwnerClaims, type Writer } from '../files/provenance.js'
import { decodeText } from '../text/lines.js'

export type TransferDeps = {
  registry: Pick<AgentRegistry, 'use' | 'list'>
  /** The team space, or null without MNEMO_TEAM_DIR. */
  team: AgentSpace | null
  /** The users of an agent (those with a folder under users/). */
  users: (agent: string) => Promise<string[]>
  layout: ArchiveLayout
  limits: ReadArchiveLimits
  /** MNEMO_MAX_FOLDERS_PER_AGENT: what an import may make in an agent it creates. */
  maxFolders: number
  log: Logger
}

/** One imported file: its archive name and what was done with it. */
export type ImportedFile = { path: string; outcome: RestoreOutcome; indexed: boolean }

/** Files exported: markdown memory, not session transcripts. */
const isExported = (f: { path: string; source: string }) => f.source === 'memory' && /\.md$/i.test(f.path)

/** A file an import wrote, and what it held before (null: it did not exist). */
type Written = { owner: Owner; rel: string; bytes: Buffer; previous: Buffer | null }

/** An archive's file with where it goes. */
type Incoming = ArchiveFile & { target: { owner: Owner; rel: string } }

/** The files of one space, in archive order, and the folders writing them would make. */
type Group = { owner: Owner; files: Incoming[]; folders: string[] }

/**
 * Seconds tar-stream writes right in a header's mtime field: it takes them as a 32-bit
 * integer, so a time after 2038-01-19 (or before 1970) came out wrong (2242-03-16, 2037).
 */
const MAX_HEADER_SECONDS = 2 ** 31 - 1

/** A PAX `mtime` record, in seconds, for a time the header cannot hold (read-archive.ts prefers it). */
function paxMtime(mtimeMs: number): { pax?: Record<string, string> } {
  const seconds = mtimeMs / 1000
  return seconds >= 0 && seconds <= MAX_HEADER_SECONDS ? {} : { pax: { mtime: String(seconds) } }
}

function ownerKey(owner: Owner): string {
  if (owner.kind === 'team') return 'team'
  return owner.kind === 'user' ? `user:${owner.agent}/${owner.user}` : `agent:${owner.id}`
}

/** Adds one file to the archive; resolves once the reader has taken it (backpressure). */
function addEntry(pack: tar.Pack, header: Parameters<tar.Pack['entry']>[0], bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    // A client that goes away destroys the stream, and an entry waiting for room is never called back.
    const onClose = () => reject(new Error('the export stream was closed'))
    pack.once('close', onClose)
    pack.entry(header, bytes, (err) => {
      pack.off('close', onClose)
      if (err) reject(err)
      else resolve()
    })
  })
}

export function createTransferService(deps: TransferDeps) {
  const { registry, team, layout } = deps

  /** Runs `fn` on the space of `owner`; an agent opened for `access` (a write may create it). */
  function onOwner<T>(owner: Owner, access: 'read' | 'write', fn: (space: SpaceView) => Promise<T>): Promise<T> {
    if (owner.kind === 'agent') return registry.use(owner.id, access, fn)
    if (owner.kind === 'user') return registry.use(userSpaceId(owner.agent, owner.user), access, fn)
    if (!team) throw appError('VALIDATION_FAILED', 'There is no team memory (MNEMO_TEAM_DIR is not set)')
    return team.checkFolder().then(() => fn(team))
  }

  /** The spaces an archive of `scope` holds. */
  async function ownersOf(scope: ArchiveScope): Promise<Owner[]> {
    /** An agent's space, then each of its users'. */
    const withUsers = async (id: string): Promise<Owner[]> => [
      { kind: 'agent', id },
      ...(await deps.users(id)).map((user): Owner => ({ kind: 'user', agent: id, user })),
    ]
    if (scope.kind === 'user') return [{ kind: 'user', agent: scope.agent, user: scope.user }]
    if (scope.kind === 'agent') return scope.users ? withUsers(scope.agent) : [{ kind: 'agent', id: scope.agent }]
    const agents = (await registry.list()).map((a) => a.id).filter((id) => id !== MAIN_AGENT)
    const owners: Owner[] = []
    for (const id of [MAIN_AGENT, ...agents]) owners.push(...(await withUsers(id)))
    return [...owners, ...(team ? [{ kind: 'team' } as const] : [])]
  }

  /** Each space's files to export, after a sync of its index (a failed sync is logged: the index serves). */
  async function plan(scope: ArchiveScope): Promise<{ owner: Owner; paths: string[] }[]> {
    const out = []
    for (const owner of await ownersOf(scope)) {
      const paths = await onOwner(owner, 'read', async (space) => {
        await space.indexing.requestSync({ full: false, reason: 'export' }).catch((err: unknown) => {
          deps.log.warn({ err, space: ownerKey(owner) }, 'the sync before an export failed; exporting what is indexed')
        })
        return (await space.files.list()).filter(isExported).map((f) => f.path)
      })
      out.push({ owner, paths })
    }
    return out
  }

  /** Writes the planned files into `pack`, one at a time, and ends it. */
  async function fill(pack: tar.Pack, scope: ArchiveScope, groups: { owner: Owner; paths: string[] }[]) {
    for (const { owner, paths } of groups) {
      await onOwner(owner, 'read', async (space) => {
        for (const rel of paths) {
          const file = await space.files.readBytes(rel)
          // Deleted (or grown past MNEMO_MAX_FILE_BYTES) since it was listed: not in this archive.
          if (file.kind !== 'ok') {
            deps.log.warn({ path: rel, space: ownerKey(owner), reason: file.kind }, 'a file left out of an export')
            continue
          }
          const name = layout.nameOf(scope, owner, rel)
          const header = { name, mtime: new Date(file.mtimeMs), mode: 0o644, ...paxMtime(file.mtimeMs) }
          await addEntry(pack, header, file.bytes)
        }
      })
    }
    pack.finalize()
  }

  /**
   * Puts back what an import that failed part-way (a full disk, a folder or agent limit)
   * had written, last first, as far as it can: a file that cannot be put back is logged.
   */
  async function undo(written: Written[]) {
    for (const w of written.reverse()) {
      try {
        await onOwner(w.owner, 'read', (space) => space.writes.revert(w.rel, w.bytes, w.previous))
      } catch (err) {
        deps.log.error({ err, path: w.rel, space: ownerKey(w.owner) }, 'could not undo a file of a failed import')
      }
    }
  }

  /** The folders of `owner` among `dirs` that do not exist; an agent the import would create has none. */
  async function surveyFolders(owner: Owner, dirs: string[]): Promise<FolderSurvey> {
    try {
      return await onOwner(owner, 'read', (space) => space.folders.survey(dirs))
    } catch (err) {
      if (owner.kind === 'team' || !isAppError(err) || err.code !== 'AGENT_NOT_FOUND') throw err
      return surveyOfNothing(dirs, PLAIN_LAYOUT.scanRoots(), deps.maxFolders)
    }
  }

  /**
   * The archive's files by space, each space's folders planned: throws FOLDER_LIMIT (naming
   * the entry) when one would pass its cap, before any space is written or agent created.
   */
  async function groupAndPlan(files: Incoming[]): Promise<Group[]> {
    const byOwner = new Map<string, Incoming[]>()
    for (const f of files) {
      const key = ownerKey(f.target.owner)
      const group = byOwner.get(key)
      if (group) group.push(f)
      else byOwner.set(key, [f])
    }
    const groups: Group[] = []
    for (const group of byOwner.values()) {
      const owner = (group[0] as Incoming).target.owner
      const dirs = [...new Set(group.flatMap((f) => foldersOf(f.target.rel)))]
      const survey = await surveyFolders(owner, dirs)
      const folders = planFolders(
        group.map((f) => ({ rel: f.target.rel, entry: f.name })),
        survey,
      )
      groups.push({ owner, files: group, folders })
    }
    return groups
  }

  /**
   * Refuses the archive (403 PROVENANCE_FORBIDDEN, naming the entry) when a file would bring
   * an owner claim its space's file does not hold and `writer` may not make one
   * (provenance.ts): an agent token cannot promote its notes to its owner's through an import.
   */
  async function checkProvenance(groups: readonly Group[], writer: Writer): Promise<void> {
    if (writer.mayClaimOwner) return
    for (const { owner, files } of groups) {
      for (const f of files) {
        const text = decodeText(f.bytes)
        if (!text.includes('owner')) continue
        const current = await currentText(owner, f.target.rel)
        try {
          checkOwnerClaims(writer, text, current)
        } catch (err) {
          if (!isAppError(err)) throw err
          throw appError('PROVENANCE_FORBIDDEN', `Archive entry "${f.name}": ${err.message}`, {
            details: { entry: f.name },
          })
        }
      }
    }
  }

  /** What a space's file holds now (null: nothing, or an agent the import would create). */
  async function currentText(owner: Owner, rel: string): Promise<string | null> {
    try {
      return await onOwner(owner, 'read', async (space) => {
        const file = await space.files.readBytes(rel)
        return file.kind === 'ok' ? decodeText(file.bytes) : null
      })
    } catch (err) {
      if (owner.kind === 'team' || !isAppError(err) || err.code !== 'AGENT_NOT_FOUND') throw err
      return null
    }
  }

  /** Removes the folders an undone import made in the spaces it wrote to, where they are empty again. */
  async function removeFolders(groups: readonly Group[]) {
    for (const { owner, folders } of groups) {
      if (folders.length === 0) continue
      try {
        await onOwner(owner, 'read', (space) => space.folders.removeEmpty(folders))
      } catch (err) {
        deps.log.error({ err, space: ownerKey(owner) }, 'could not remove the folders of a failed import')
      }
    }
  }

  return {
    /**
     * The archive of `scope` as a stream. Resolves once every space was found and listed
     * (so a refusal is still an error answer); a failure while streaming ends the stream
     * without the end-of-archive marker, which an import refuses as cut short.
     */
    async exportArchive(scope: ArchiveScope): Promise<Readable> {
      const groups = await plan(scope)
      const pack = tar.pack()
      fill(pack, scope, groups).catch((err: unknown) => {
        deps.log.error({ err }, 'an export failed while streaming; the archive was cut short')
        pack.destroy(err instanceof Error ? err : new Error(String(err)))
      })
      return pack as unknown as Readable
    },

    /**
     * Imports the archive in `body`: reads and checks all of it, then writes its files
     * (`keep`: files that exist are left as they are) and indexes them. A refused archive
     * (a bad entry, or more folders than a space may have) writes and creates nothing.
     */
    async importArchive(
      scope: ArchiveScope,
      body: Readable,
      opts: { keep: boolean; writer: Writer },
    ): Promise<ImportedFile[]> {
      const files = await readArchive(body, deps.limits, (name, kind) => layout.targetOf(scope, name, kind))
      const groups = await groupAndPlan(files)
      await checkProvenance(groups, opts.writer)
      /** The spaces writing began in (an agent's may have been created for it). */
      const begun: Group[] = []
      const done: ImportedFile[] = []
      const written: Written[] = []
      // Bytes of replaced files held for undo: at most as much as the archive may hold, so
      // an archive of small files over big ones cannot hold unbounded memory. Past that,
      // files are written without a way back (a failure then leaves them; logged).
      let heldBytes = 0
      try {
        for (const group of groups) {
          const { owner } = group
          await onOwner(owner, 'write', async (space) => {
            begun.push(group)
            for (const f of group.files) {
              // Listed for undo before the file changes: a write that fails after its rename
              // has replaced the file too (revert leaves a file that does not hold these bytes).
              const changing = (previous: Buffer | null) => {
                heldBytes += previous?.length ?? 0
                if (heldBytes <= deps.limits.maxBodyBytes) {
                  written.push({ owner, rel: f.target.rel, bytes: f.bytes, previous })
                }
              }
              const r = await space.writes.restore(f.target.rel, f.bytes, {
                keep: opts.keep,
                mtimeMs: f.mtimeMs,
                changing,
              })
              done.push({ path: f.name, outcome: r.outcome, indexed: r.indexed })
            }
          })
        }
      } catch (err) {
        if (heldBytes > deps.limits.maxBodyBytes) {
          deps.log.warn('an import failed after replacing more than it could hold for undo: later files stay written')
        }
        await undo(written)
        await removeFolders(begun)
        throw err
      }
      return done
    },
  }
}

export type TransferService = ReturnType<typeof createTransferService>
