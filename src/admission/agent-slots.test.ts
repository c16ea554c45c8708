import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createAgentSlots, type SlotOutcome, type SlotTicket } from './agent-slots.js'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

/** The outcome of a ticket so far (undefined while it waits). */
function track(ticket: SlotTicket): () => SlotOutcome | undefined {
  let outcome: SlotOutcome | undefined
  void ticket.ready.then((o) => (outcome = o))
  return () => outcome
}

describe('createAgentSlots', () => {
  it('grants up to maxConcurrent at once, then queues, and hands freed slots over in arrival order', async () => {
    const slots = createAgentSlots({ maxConcurrent: 2, queueMs: 1000, maxQueued: 8 })
    const tickets = [1, 2, 3, 4].map(() => slots.acquire('alice'))
    const [a, b] = tickets as [SlotTicket, SlotTicket]
    const [sa, sb, sc, sd] = tickets.map(track)
    await vi.advanceTimersByTimeAsync(0)
    expect([sa?.(), sb?.(), sc?.(), sd?.()]).toEqual(['granted', 'granted', undefined, undefined])
    expect(slots.waiting()).toBe(2)
    b.release()
    await vi.advanceTimersByTimeAsync(0)
    expect([sc?.(), sd?.()]).toEqual(['granted', undefined])
    a.release()
    await vi.advanceTimersByTimeAsync(0)
    expect(sd?.()).toBe('granted')
    expect(slots.active()).toBe(2)
    expect(slots.waiting()).toBe(0)
  })

  it('answers busy to a request that waited queueMs, and frees nothing for it', async () => {
    const slots = createAgentSlots({ maxConcurrent: 1, queueMs: 1000, maxQueued: 8 })
    const held = slots.acquire('alice')
    const late = track(slots.acquire('alice'))
    await vi.advanceTimersByTimeAsync(999)
    expect(late()).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    expect(late()).toBe('busy')
    expect(slots.waiting()).toBe(0)
    held.release()
    expect(slots.active()).toBe(0)
    expect(slots.agents()).toBe(0)
  })

  it('keeps agents apart: one agent at its limit does not delay another', async () => {
    const slots = createAgentSlots({ maxConcurrent: 1, queueMs: 1000, maxQueued: 8 })
    slots.acquire('alice')
    track(slots.acquire('alice'))
    const bob = track(slots.acquire('bob'))
    await vi.advanceTimersByTimeAsync(0)
    expect(bob()).toBe('granted')
  })

  it.each([
    { name: 'queueMs is 0', queueMs: 0, maxQueued: 8 },
    { name: 'the queue is full', queueMs: 1000, maxQueued: 0 },
  ])('refuses at once when $name', async ({ queueMs, maxQueued }) => {
    const slots = createAgentSlots({ maxConcurrent: 1, queueMs, maxQueued })
    slots.acquire('alice')
    const late = track(slots.acquire('alice'))
    await vi.advanceTimersByTimeAsync(0)
    expect(late()).toBe('busy')
    expect(slots.waiting()).toBe(0)
  })

  it('leaves the queue when a waiting request is released (client gone), and never leaks a slot', async () => {
    const slots = createAgentSlots({ maxConcurrent: 1, queueMs: 1000, maxQueued: 8 })
    const held = slots.acquire('alice')
    const gone = slots.acquire('alice')
    const goneOutcome = track(gone)
    const next = slots.acquire('alice')
    const nextOutcome = track(next)
    gone.release()
    gone.release()
    await vi.advanceTimersByTimeAsync(0)
    expect(goneOutcome()).toBe('cancelled')
    held.release()
    held.release()
    await vi.advanceTimersByTimeAsync(0)
    expect(nextOutcome()).toBe('granted')
    next.release()
    next.release()
    expect(slots.active()).toBe(0)
    expect(slots.waiting()).toBe(0)
    expect(slots.agents()).toBe(0)
  })
})
