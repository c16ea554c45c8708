/**
 * Per-agent concurrency (issue 16): at most `maxConcurrent` requests of one agent in
 * progress at once; the next ones wait in a first-come, first-served queue for at most
 * `queueMs`, then are refused (the caller answers 429 AGENT_BUSY). One agent's flood
 * never delays another agent's requests: each agent has its own slots.
 */

/** How a request's wait for a slot ended. */
export type SlotOutcome = 'granted' | 'busy' | 'cancelled'

/** One request's claim on its agent's slots. */
export type SlotTicket = {
  /** Settles once: granted, busy (queue full or waited too long) or cancelled (released while waiting). */
  ready: Promise<SlotOutcome>
  /**
   * Gives the slot back (or leaves the queue). Idempotent: call it from every way a request
   * can end (response sent, client gone, hijacked reply closed).
   */
  release: () => void
}

export type AgentSlotsOptions = {
  maxConcurrent: number
  /** Longest wait for a slot, in ms; 0: refuse at once when all are taken. */
  queueMs: number
  /** Requests of one agent that may wait at once; more are refused at once. */
  maxQueued: number
}

type Waiter = { settle: (outcome: SlotOutcome) => void; timer: NodeJS.Timeout | undefined }
type AgentState = { active: number; queue: Waiter[] }

export function createAgentSlots(opts: AgentSlotsOptions) {
  const agents = new Map<string, AgentState>()
  let waiting = 0

  const forget = (agent: string, state: AgentState) => {
    if (state.active === 0 && state.queue.length === 0) agents.delete(agent)
  }

  /** Hands a freed slot to the agent's longest waiter, or returns it. */
  function free(agent: string, state: AgentState): void {
    const next = state.queue.shift()
    if (next) {
      waiting--
      clearTimeout(next.timer)
      next.settle('granted')
    } else {
      state.active--
      forget(agent, state)
    }
  }

  function acquire(agent: string): SlotTicket {
    let state = agents.get(agent)
    if (!state) {
      state = { active: 0, queue: [] }
      agents.set(agent, state)
    }
    const own = state
    if (own.active < opts.maxConcurrent) {
      own.active++
      let held = true
      return {
        ready: Promise.resolve('granted'),
        release: () => {
          if (held) free(agent, own)
          held = false
        },
      }
    }
    if (opts.queueMs === 0 || own.queue.length >= opts.maxQueued) {
      forget(agent, own)
      return { ready: Promise.resolve('busy'), release: () => {} }
    }
    let phase: 'waiting' | 'held' | 'done' = 'waiting'
    let resolveReady!: (outcome: SlotOutcome) => void
    const ready = new Promise<SlotOutcome>((resolve) => (resolveReady = resolve))
    const waiter: Waiter = {
      settle: (outcome) => {
        phase = outcome === 'granted' ? 'held' : 'done'
        resolveReady(outcome)
      },
      timer: undefined,
    }
    const leaveQueue = (outcome: SlotOutcome) => {
      own.queue.splice(own.queue.indexOf(waiter), 1)
      waiting--
      clearTimeout(waiter.timer)
      forget(agent, own)
      waiter.settle(outcome)
    }
    waiter.timer = setTimeout(() => leaveQueue('busy'), opts.queueMs)
    own.queue.push(waiter)
    waiting++
    return {
      ready,
      release: () => {
        if (phase === 'waiting') leaveQueue('cancelled')
        else if (phase === 'held') free(agent, own)
        phase = 'done'
      },
    }
  }

  return {
    acquire,
    /** Requests waiting for a slot now, all agents together. */
    waiting: () => waiting,
    /** Requests holding a slot now, all agents together. */
    active: () => [...agents.values()].reduce((sum, s) => sum + s.active, 0),
    /** Agents with a request in progress or waiting (entries are dropped when idle). */
    agents: () => agents.size,
  }
}

export type AgentSlots = ReturnType<typeof createAgentSlots>
