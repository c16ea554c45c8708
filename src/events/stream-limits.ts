/**
 * The open event streams of a server, capped per agent and in total (each holds a socket
 * and a queue of up to `queue` frames: event-settings.ts). A stream that would pass a cap is
 * refused with 429 EVENT_STREAMS_LIMIT before anything is sent. closeAll() ends every
 * stream, so the server's close does not wait for clients that never hang up.
 */
import { appError } from '../shared/errors.js'

export type StreamLimits = {
  /** Streams one agent may hold open at once. */
  perAgent: number
  /** Streams of every agent together. */
  total: number
}

export function createStreamLimits(limits: StreamLimits) {
  const perAgent = new Map<string, number>()
  let all = 0
  const open = new Set<{ end: () => void }>()

  return {
    /**
     * Takes a place for a stream of `agent`, or throws EVENT_STREAMS_LIMIT; the returned
     * function gives it back (idempotent).
     */
    admit(agent: string): () => void {
      const mine = perAgent.get(agent) ?? 0
      if (mine >= limits.perAgent) {
        throw appError(
          'EVENT_STREAMS_LIMIT',
          `Agent "${agent}" has ${limits.perAgent} event streams open already; close one first`,
        )
      }
      if (all >= limits.total) {
        throw appError('EVENT_STREAMS_LIMIT', `The server has ${limits.total} event streams open already`)
      }
      perAgent.set(agent, mine + 1)
      all++
      let released = false
      return () => {
        if (released) return
        released = true
        all--
        const left = (perAgent.get(agent) ?? 1) - 1
        if (left === 0) perAgent.delete(agent)
        else perAgent.set(agent, left)
      }
    },
    /** Keeps `stream` to be ended by closeAll() until `forget` is called. */
    track(stream: { end: () => void }): () => void {
      open.add(stream)
      return () => void open.delete(stream)
    },
    /** Ends every open stream (server shutdown). */
    closeAll(): void {
      for (const s of [...open]) s.end()
    },
  }
}
