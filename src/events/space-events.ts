/**
 * What one space tells the event bus (event-bus.ts): files written and deleted through the
 * API, files the index took in or dropped (API writes and the watcher's syncs alike),
 * entries superseded and sessions forgotten, and rebuilds finished. Paths are named as the agents see them: the team's under `team/`.
 */
import { publicErrorMessage } from '../shared/public-error.js'
import type { Audience, EventBus } from './event-bus.js'

/** A change a sync pass made to the live index. */
export type IndexChange =
  | { kind: 'indexed'; path: string; sha256: string; sizeBytes: number; chunks: number }
  | { kind: 'unindexed'; path: string }

/** An entry the write API superseded, or a session's flush entry it removed (files/entry-service.ts). */
export type EntryChange =
  | { kind: 'superseded'; path: string; startLine: number; endLine: number }
  | { kind: 'forgotten'; path: string; startLine: number; endLine: number; sessionId: string }

/** A change the write API made to a file on disk, before it is indexed. */
export type FileChange =
  { kind: 'written'; path: string; sha256?: string; sizeBytes: number } | { kind: 'deleted'; path: string }

export function createSpaceEvents(bus: Pick<EventBus, 'publish'>, audience: Audience, pathPrefix: string) {
  const named = (path: string) => pathPrefix + path
  return {
    fileChanged: (change: FileChange): void => {
      if (change.kind === 'deleted') bus.publish(audience, { type: 'file.deleted', path: named(change.path) })
      else {
        bus.publish(audience, {
          type: 'file.written',
          path: named(change.path),
          ...(change.sha256 !== undefined && { sha256: change.sha256 }),
          sizeBytes: change.sizeBytes,
        })
      }
    },
    entryChanged: (change: EntryChange): void => {
      const { kind, path, ...lines } = change
      bus.publish(audience, {
        type: kind === 'superseded' ? 'entry.superseded' : 'session.forgotten',
        path: named(path),
        ...lines,
      })
    },
    indexChanged: (change: IndexChange): void => {
      if (change.kind === 'unindexed') bus.publish(audience, { type: 'file.unindexed', path: named(change.path) })
      else {
        const { path, sha256, sizeBytes, chunks } = change
        bus.publish(audience, { type: 'file.indexed', path: named(path), sha256, sizeBytes, chunks })
      }
    },
    /**
     * Runs a rebuild and announces how it ended. One stopped by shutdown (`signal` aborted)
     * did not finish: nothing is announced.
     */
    async rebuilt<T extends { indexed: number }>(run: () => Promise<T>, signal: AbortSignal): Promise<T> {
      let result: T
      try {
        result = await run()
      } catch (err) {
        if (!signal.aborted)
          bus.publish(audience, { type: 'rebuild.finished', ok: false, error: publicErrorMessage(err) })
        throw err
      }
      bus.publish(audience, { type: 'rebuild.finished', ok: true, files: result.indexed })
      return result
    },
  }
}

export type SpaceEvents = ReturnType<typeof createSpaceEvents>
