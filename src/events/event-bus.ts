/**
 * Change notifications (GET /events): what happened to memory files and indexes, published
 * by every space (space-events.ts) and delivered to the streams of the agents that may see
 * it — an agent's own events to that agent, the team's to every agent. Events get ids that
 * increase by one (`<boot>-<seq>`: `boot` names this process, so an id from before a restart
 * is recognised as stale). The last `replay` events, across every agent, are kept in a ring
 * so a client that reconnects with Last-Event-ID gets what it missed; one whose id is older
 * than the ring, or not from this process, is told to start over (`reset`). Publishing is
 * synchronous and O(listeners): it never waits for a client.
 */

/** What an event announces (README, "Change notifications"). */
export type EventType = 'file.written' | 'file.deleted' | 'file.indexed' | 'file.unindexed' | 'rebuild.finished'

/** Whose events: an agent's own space, or the team's (seen by every agent). */
export type Audience = { space: 'agent'; agent: string } | { space: 'team' }

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
}

/** A delivered event: its SSE frame, ready to write. */
type Stored = { seq: number; key: string; frame: string }

/** Where a new stream starts: the events it missed, or `reset` when they are gone. */
export type Resume = { kind: 'replay'; frames: string[] } | { kind: 'reset'; reason: string }

export type EventBusOptions = {
  /** Events kept for Last-Event-ID, across every agent. */
  replay: number
  now?: () => number
  /** Names this process in ids (default: its start time in base 36). */
  boot?: string
}

const keyOf = (audience: Audience): string => (audience.space === 'team' ? 'team' : `agent:${audience.agent}`)

/** The audience keys an agent's stream receives: its own and the team's. */
export const audiencesOf = (agent: string): ReadonlySet<string> =>
  new Set([keyOf({ space: 'agent', agent }), keyOf({ space: 'team' })])

const ID = /^([0-9a-z]+)-(\d{1,15})$/

export function createEventBus(opts: EventBusOptions) {
  const now = opts.now ?? Date.now
  const boot = opts.boot ?? Date.now().toString(36)
  const capacity = Math.max(1, opts.replay)
  // A circular buffer: `ring[(start + i) % capacity]` is the i-th oldest of `size` events.
  const ring: (Stored | undefined)[] = new Array<Stored | undefined>(capacity)
  let start = 0
  let size = 0
  let seq = 0
  const listeners = new Set<{ keys: ReadonlySet<string>; deliver: (frame: string) => void }>()

  const idOf = (n: number) => `${boot}-${n}`

  /** The oldest event id the ring still holds (seq + 1 when it is empty). */
  const oldest = () => (size === 0 ? seq + 1 : (ring[start] as Stored).seq)

  function publish(audience: Audience, body: EventBody): void {
    seq++
    const key = keyOf(audience)
    const data = {
      id: idOf(seq),
      ...body,
      space: audience.space,
      ...(audience.space === 'agent' && { agent: audience.agent }),
      time: new Date(now()).toISOString(),
    }
    const stored = { seq, key, frame: `id: ${data.id}\nevent: ${body.type}\ndata: ${JSON.stringify(data)}\n\n` }
    ring[(start + size) % capacity] = stored
    if (size < capacity) size++
    else start = (start + 1) % capacity
    for (const l of listeners) if (l.keys.has(key)) l.deliver(stored.frame)
  }

  /** What a stream resuming after `lastEventId` (undefined: a new stream) must be sent first. */
  function resume(keys: ReadonlySet<string>, lastEventId: string | undefined): Resume {
    if (lastEventId === undefined) return { kind: 'replay', frames: [] }
    const m = ID.exec(lastEventId.trim())
    if (!m || m[1] !== boot) return { kind: 'reset', reason: 'the id is not from this server process' }
    const after = Number(m[2])
    if (after > seq) return { kind: 'reset', reason: 'the id is newer than any event' }
    if (after < oldest() - 1) return { kind: 'reset', reason: 'events after the id are no longer kept' }
    const frames: string[] = []
    for (let i = 0; i < size; i++) {
      const e = ring[(start + i) % capacity] as Stored
      if (e.seq > after && keys.has(e.key)) frames.push(e.frame)
    }
    return { kind: 'replay', frames }
  }

  return {
    publish,
    /**
     * Starts delivering the events of `keys` to `deliver`, from now; returns what came before
     * (replay or reset), the id of now, and how to stop. Nothing is published in between.
     */
    subscribe(keys: ReadonlySet<string>, lastEventId: string | undefined, deliver: (frame: string) => void) {
      const listener = { keys, deliver }
      listeners.add(listener)
      return {
        resume: resume(keys, lastEventId),
        currentId: idOf(seq),
        unsubscribe: () => void listeners.delete(listener),
      }
    },
  }
}

export type EventBus = ReturnType<typeof createEventBus>
