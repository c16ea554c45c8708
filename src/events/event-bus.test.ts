import { describe, expect, it } from 'vitest'
import { createEventBus } from './event-bus.js'

const ada = { space: 'agent', agent: 'ada' } as const
const bob = { space: 'agent', agent: 'bob' } as const
const team = { space: 'team' } as const

const ids = (frames: string[]) => frames.map((f) => /^id: (\S+)/.exec(f)?.[1])

describe('the event bus', () => {
  it('delivers an agent its own events and the team’s, numbered in its own sequence', () => {
    const bus = createEventBus({ replay: 10, boot: 'b', now: () => 0 })
    const got: string[] = []
    bus.subscribe({ agent: 'ada', user: null }, undefined, (f) => got.push(f))
    bus.publish(ada, { type: 'file.written', path: 'MEMORY.md' })
    bus.publish(bob, { type: 'file.written', path: 'MEMORY.md' })
    bus.publish(team, { type: 'file.deleted', path: 'team/MEMORY.md' })
    expect(got).toEqual([
      'id: b-ada-1\nevent: file.written\ndata: {"id":"b-ada-1","type":"file.written","path":"MEMORY.md",' +
        '"space":"agent","agent":"ada","time":"1970-01-01T00:00:00.000Z"}\n\n',
      'id: b-ada-2\nevent: file.deleted\ndata: {"id":"b-ada-2","type":"file.deleted","path":"team/MEMORY.md",' +
        '"space":"team","time":"1970-01-01T00:00:00.000Z"}\n\n',
    ])
  })

  it("gives a team event an id in each agent's sequence, and never moves one agent's ids for another's events", () => {
    const bus = createEventBus({ replay: 10, boot: 'b' })
    const got = { ada: [] as string[], bob: [] as string[] }
    bus.subscribe({ agent: 'ada', user: null }, undefined, (f) => got.ada.push(f))
    bus.subscribe({ agent: 'bob', user: null }, undefined, (f) => got.bob.push(f))
    for (let i = 0; i < 5; i++) bus.publish(ada, { type: 'file.indexed', path: `f${i}` })
    bus.publish(team, { type: 'file.indexed', path: 'team/t.md' })
    bus.publish(bob, { type: 'file.indexed', path: 'b.md' })
    expect(ids(got.ada)).toEqual(['b-ada-1', 'b-ada-2', 'b-ada-3', 'b-ada-4', 'b-ada-5', 'b-ada-6'])
    expect(ids(got.bob)).toEqual(['b-bob-1', 'b-bob-2'])
    expect(bus.subscribe({ agent: 'bob', user: null }, undefined, () => undefined).currentId).toBe('b-bob-2')
  })

  it("gives a user's stream its own events, the agent's shared ones and the team's, never another user's", () => {
    const bus = createEventBus({ replay: 10, boot: 'b' })
    const got = { alice: [] as string[], bob: [] as string[], shared: [] as string[] }
    bus.subscribe({ agent: 'ada', user: 'alice' }, undefined, (f) => got.alice.push(f))
    bus.subscribe({ agent: 'ada', user: 'bob' }, undefined, (f) => got.bob.push(f))
    bus.subscribe({ agent: 'ada', user: null }, undefined, (f) => got.shared.push(f))
    bus.publish({ space: 'user', agent: 'ada', user: 'alice' }, { type: 'file.written', path: 'users/alice/MEMORY.md' })
    bus.publish(ada, { type: 'file.written', path: 'MEMORY.md' })
    bus.publish(team, { type: 'file.written', path: 'team/MEMORY.md' })
    expect(ids(got.alice)).toEqual(['b-ada/alice-1', 'b-ada/alice-2', 'b-ada/alice-3'])
    expect(got.alice[0]).toContain('"space":"user","agent":"ada","user":"alice"')
    expect(ids(got.bob)).toEqual(['b-ada/bob-1', 'b-ada/bob-2'])
    expect(ids(got.shared)).toEqual(['b-ada-1', 'b-ada-2'])
    expect(got.bob.join('') + got.shared.join('')).not.toContain('alice')
    // An id of alice's stream resumes nothing for bob's.
    const sub = bus.subscribe({ agent: 'ada', user: 'bob' }, 'b-ada/alice-1', () => undefined)
    expect(sub.resume.kind).toBe('reset')
  })

  it('replays what came after an id while the ring holds it, and resets otherwise', () => {
    const bus = createEventBus({ replay: 4, boot: 'b' })
    const resume = (agent: string, id: string | undefined) => {
      const sub = bus.subscribe({ agent, user: null }, id, () => undefined)
      sub.unsubscribe()
      return { ...sub.resume, currentId: sub.currentId }
    }
    bus.publish(ada, { type: 'file.indexed', path: 'a1' })
    bus.publish(bob, { type: 'file.indexed', path: 'b1' })
    bus.publish(team, { type: 'file.indexed', path: 'team/t1' })
    expect(resume('ada', undefined)).toEqual({ kind: 'replay', frames: [], currentId: 'b-ada-2' })
    const all = resume('ada', 'b-ada-0')
    expect(all.kind === 'replay' && ids(all.frames)).toEqual(['b-ada-1', 'b-ada-2'])
    const fromOne = resume('bob', 'b-bob-1')
    expect(fromOne.kind === 'replay' && fromOne.frames).toEqual([expect.stringContaining('"path":"team/t1"')])
    expect(resume('ada', 'b-ada-2')).toMatchObject({ kind: 'replay', frames: [] })
    // Two more of bob's: the ring (4) drops a1, so ada can resume from 1 but not from 0.
    bus.publish(bob, { type: 'file.indexed', path: 'b2' })
    bus.publish(bob, { type: 'file.indexed', path: 'b3' })
    const fromAdaOne = resume('ada', 'b-ada-1')
    expect(fromAdaOne.kind === 'replay' && ids(fromAdaOne.frames)).toEqual(['b-ada-2'])
    expect(resume('ada', 'b-ada-0')).toMatchObject({ kind: 'reset', reason: 'events after the id are no longer kept' })
    expect(resume('ada', 'b-ada-9')).toMatchObject({ kind: 'reset', reason: 'the id is newer than any event' })
    expect(resume('ada', 'b-bob-1')).toMatchObject({
      kind: 'reset',
      reason: "the id is from another agent's (or user's) stream",
    })
    expect(resume('ada', 'other-ada-1')).toMatchObject({
      kind: 'reset',
      reason: 'the id is not from this server process',
    })
    // The form ids had before they were per agent: `<boot>-<n>`, counting every agent's events.
    expect(resume('ada', 'b-1')).toMatchObject({ kind: 'reset', reason: 'the id is not from this server process' })
    expect(resume('ada', 'garbage')).toMatchObject({ kind: 'reset' })
  })

  it('reads an agent id that holds dashes', () => {
    const bus = createEventBus({ replay: 4, boot: 'b' })
    bus.publish({ space: 'agent', agent: 'ci-bot-2' }, { type: 'file.deleted', path: 'x' })
    bus.publish({ space: 'agent', agent: 'ci-bot-2' }, { type: 'file.deleted', path: 'y' })
    const sub = bus.subscribe({ agent: 'ci-bot-2', user: null }, 'b-ci-bot-2-1', () => undefined)
    expect(sub.resume.kind === 'replay' && ids(sub.resume.frames)).toEqual(['b-ci-bot-2-2'])
  })

  it('names its process with the start time and random digits unless told', () => {
    const a = createEventBus({ replay: 1 }).subscribe(
      { agent: 'ada', user: null },
      undefined,
      () => undefined,
    ).currentId
    const b = createEventBus({ replay: 1 }).subscribe(
      { agent: 'ada', user: null },
      undefined,
      () => undefined,
    ).currentId
    expect(a).toMatch(/^[0-9a-z]+-ada-0$/)
    expect(a).not.toBe(b)
  })

  it('stops delivering after unsubscribe', () => {
    const bus = createEventBus({ replay: 3, boot: 'b' })
    const got: string[] = []
    const sub = bus.subscribe({ agent: 'ada', user: null }, undefined, (f) => got.push(f))
    sub.unsubscribe()
    bus.publish(ada, { type: 'file.deleted', path: 'x' })
    expect(got).toEqual([])
  })
})
