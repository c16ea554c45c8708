/**
 * Change notifications (GET /events): what happened to memory files and indexes, published
 * by every space (space-events.ts) and delivered to the streams of the agents that may see
 * it — an agent's own events to that agent, the team's to every agent. Ids are per agent
 * stream (issue 30): `<boot>-<agent>-<n>`, `n` the event's place in that agent's sequence
 * (its own events and the team's, since this process started), so an id tells nothing of
 * other agents' activity; a team event gets an id in each receiving agent's sequence. `boot`
 * names this process, so an id from before a restart (or of another replica, or in the
 * older `<boot>-<n>` form) is told to start over (`reset`) rather than replayed wrongly. The
 * last `replay` events, across every agent, are kept in a ring so a client that reconnects
 * with Last-Event-ID gets what it missed; when some of that is gone, `reset`. Publishing is
 * synchronous and O(listeners): it never waits for a client.
 */
import { randomBytes } from 'node:crypto'

/** What an event announces (docs/manual.md, "Change notifications"). */
export type EventType =
  | 'file.written'
  | 'file.deleted'
  | 'file.indexed'
  | 'file.unindexed'
  | 'rebuild.finished'
  | 'entry.superseded'
  | 'session.forgotten'

/**
 * Whose events: an agent's own (shared) space, one of its users' (heard only by streams
 * acting for that user), or the team's (heard by every agent).
 */
export type Audience =
  { space: 'agent'; agent: string } | { space: 'user'; agent: string; user: string } | { space: 'team' }

/** Whose stream: an agent's, or a user's inside an agent (null: none). */
export type Listener = { agent: string; user: string | null }

/** An event as published, before it gets its id and time. */
export type EventBody = {
  type: EventType
  /** The file as the agent names it (`team/…` for the team's); absent on rebuild events. */
  path?: string
  /** SHA-256 of the file's content, when known. */
  sha256?: string
  sizeBytes?: number
  /** Chunks the index holds for the file (file.indexed). */
  chunks?: number
  /** rebuild.finished: whether the new index went live, and what it held. */
  ok?: boolean
  files?: number
  error?: string
  /** entry.superseded, session.forgotten: the entry's lines (before a removal). */
  startLine?: number
  endLine?: number
  /** session.forgotten: the session whose flush entry went. */
  sessionId?: string
}

/**
 * A published event, without its id (each receiving agent's stream numbers it): its
 * audience key, its type, and its JSON after the id (`,"type":…}`).
 */
type Stored = { key: string; type: EventType; rest: string }

/** Where a new stream starts: the events it missed, or `reset` when they are gone. */
export type Resume = { kind: 'replay'; frames: string[] } | { kind: 'reset'; reason: string }

export type EventBusOptions = {
  /** Events kept for Last-Event-ID, across every agent. */
  replay: number
  now?: () => number
  /** Names this process in ids (default: its start time in base 36 and 8 random hex digits). */
  boot?: string
}

const TEAM_KEY = 'team'
function keyOf(audience: Audience): string {
  if (audience.space === 'team') return TEAM_KEY
  return audience.space === 'user' ? `user:${audience.agent}/${audience.user}` : `agent:${audience.agent}`
}

/** The audience keys a stream receives: the agent's own, its user's (if it acts for one) and the team's. */
export function audiencesOf(who: Listener): ReadonlySet<string> {
  const keys = [keyOf({ space: 'agent', agent: who.agent }), TEAM_KEY]
  if (who.user !== null) keys.push(keyOf({ space: 'user', agent: who.agent, user: who.user }))
  return new Set(keys)
}

/** A stream's name in its ids: the agent, or `<agent>/<user>`. */
const streamOf = (who: Listener): string => (who.user === null ? who.agent : `${who.agent}/${who.user}`)

/** `<boot>-<stream>-<n>`: boot has no `-`, n is digits, the stream is what lies between. */
const ID = /^([0-9a-z]+)-(.+)-(\d{1,15})$/

/** The SSE frame of `e` in a stream whose id for it is `id`. */
const frameOf = (e: Stored, id: string) => `id: ${id}\nevent: ${e.type}\ndata: {"id":${JSON.stringify(id)}${e.rest}\n\n`

export function createEventBus(opts: EventBusOptions) {
  const now = opts.now ?? Date.now
  // The time alone could repeat across replicas started in the same millisecond.
  const boot = opts.boot ?? `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`
  const capacity = Math.max(1, opts.replay)
  // A circular buffer: `ring[(start + i) % capacity]` is the i-th oldest of `size` events.
  const ring: (Stored | undefined)[] = new Array<Stored | undefined>(capacity)
  let start = 0
  let size = 0
  /** Events published per audience key: one entry per agent, user or team that had one. */
  const counts = new Map<string, number>()
  const listeners = new Set<{ stream: string; keys: ReadonlySet<string>; deliver: (frame: string) => void }>()

  /** How many events a stream has had: those of every audience it hears. */
  const position = (keys: ReadonlySet<string>) => {
    let n = 0
    for (const k of keys) n += counts.get(k) ?? 0
    return n
  }
  const idOf = (stream: string, n: number) => `${boot}-${stream}-${n}`

  function publish(audience: Audience, body: EventBody): void {
    const key = keyOf(audience)
    counts.set(key, (counts.get(key) ?? 0) + 1)
    const { space, ...owner } = audience
    const data = { ...body, space, ...owner, time: new Date(now()).toISOString() }
    const stored: Stored = { key, type: body.type, rest: `,${JSON.stringify(data).slice(1)}` }
    ring[(start + size) % capacity] = stored
    if (size < capacity) size++
    else start = (start + 1) % capacity
    for (const l of listeners) {
      if (l.keys.has(stored.key)) l.deliver(frameOf(stored, idOf(l.stream, position(l.keys))))
    }
  }

  /**
   * What a stream resuming after `lastEventId` (undefined: a new stream) must be sent
   * first: the last events of its sequence, newest numbered `position(keys)`, back to the
   * id — or `reset` when the ring no longer holds all of them.
   */
  function resume(stream: string, keys: ReadonlySet<string>, lastEventId: string | undefined): Resume {
    if (lastEventId === undefined) return { kind: 'replay', frames: [] }
    const m = ID.exec(lastEventId.trim())
    if (!m || m[1] !== boot) return { kind: 'reset', reason: 'the id is not from this server process' }
    if (m[2] !== stream) return { kind: 'reset', reason: "the id is from another agent's (or user's) stream" }
    const current = position(keys)
    const missed = current - Number(m[3])
    if (missed < 0) return { kind: 'reset', reason: 'the id is newer than any event' }
    const frames: string[] = []
    for (let i = size - 1; i >= 0 && frames.length < missed; i--) {
      const e = ring[(start + i) % capacity] as Stored
      if (keys.has(e.key)) frames.push(frameOf(e, idOf(stream, current - frames.length)))
    }
    if (frames.length < missed) return { kind: 'reset', reason: 'events after the id are no longer kept' }
    return { kind: 'replay', frames: frames.reverse() }
  }

  return {
    publish,
    /**
     * Starts delivering the events of a stream (the agent's own, its user's and the team's)
     * to `deliver`, from now; returns what came before (replay or reset), the id of now, and
     * how to stop. Nothing is published in between.
     */
    subscribe(who: Listener, lastEventId: string | undefined, deliver: (frame: string) => void) {
      const keys = audiencesOf(who)
      const stream = streamOf(who)
      const listener = { stream, keys, deliver }
      listeners.add(listener)
      return {
        resume: resume(stream, keys, lastEventId),
        currentId: idOf(stream, position(keys)),
        unsubscribe: () => void listeners.delete(listener),
      }
    },
  }
}

export type EventBus = ReturnType<typeof createEventBus>
