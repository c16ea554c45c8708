import { describe, expect, it } from 'vitest'
import { audiencesOf, createEventBus } from './event-bus.js'

const ada = { space: 'agent', agent: 'ada' } as const
const bob = { space: 'agent', agent: 'bob' } as const
const team = { space: 'team' } as const

describe('the event bus', () => {
  it('delivers an agent its own events and the team’s, with ids increasing by one', () => {
    const bus = createEventBus({ replay: 10, boot: 'b', now: () => 0 })
    const got: string[] = []
    bus.subscribe(audiencesOf('ada'), undefined, (f) => got.push(f))
    bus.publish(ada, { type: 'file.written', path: 'MEMORY.md' })
    bus.publish(bob, { type: 'file.written', path: 'MEMORY.md' })
    bus.publish(team, { type: 'file.deleted', path: 'team/MEMORY.md' })
    expect(got).toEqual([
      'id: b-1\nevent: file.written\ndata: {"id":"b-1","type":"file.written","path":"MEMORY.md","space":"agent",' +
        '"agent":"ada","time":"1970-01-01T00:00:00.000Z"}\n\n',
      'id: b-3\nevent: file.deleted\ndata: {"id":"b-3","type":"file.deleted","path":"team/MEMORY.md",' +
        '"space":"team","time":"1970-01-01T00:00:00.000Z"}\n\n',
    ])
  })

  it('replays what came after an id while the ring holds it, and resets otherwise', () => {
    const bus = createEventBus({ replay: 3, boot: 'b' })
    const ids = (frames: string[]) => frames.map((f) => /^id: (\S+)/.exec(f)?.[1])
    for (let i = 0; i < 3; i++) bus.publish(i === 1 ? bob : ada, { type: 'file.indexed', path: `f${i}` })
    const a = audiencesOf('ada')
    const resume = (id: string | undefined) => {
      const sub = bus.subscribe(a, id, () => undefined)
      sub.unsubscribe()
      return { ...sub.resume, currentId: sub.currentId }
    }
    expect(resume(undefined)).toEqual({ kind: 'replay', frames: [], currentId: 'b-3' })
    const r = resume('b-0')
    expect(r.kind === 'replay' && ids(r.frames)).toEqual(['b-1', 'b-3'])
    expect(resume('b-3')).toMatchObject({ kind: 'replay', frames: [] })
    // Two more: the ring (3) holds b-3..b-5, so b-2 is the oldest id to resume from.
    bus.publish(ada, { type: 'file.indexed', path: 'f3' })
    bus.publish(ada, { type: 'file.indexed', path: 'f4' })
    const fromTwo = resume('b-2')
    expect(fromTwo.kind === 'replay' && ids(fromTwo.frames)).toEqual(['b-3', 'b-4', 'b-5'])
    expect(resume('b-1')).toMatchObject({ kind: 'reset', reason: 'events after the id are no longer kept' })
    expect(resume('b-9')).toMatchObject({ kind: 'reset', reason: 'the id is newer than any event' })
    expect(resume('other-2')).toMatchObject({ kind: 'reset', reason: 'the id is not from this server process' })
    expect(resume('garbage')).toMatchObject({ kind: 'reset' })
  })

  it('stops delivering after unsubscribe', () => {
    const bus = createEventBus({ replay: 3, boot: 'b' })
    const got: string[] = []
    const sub = bus.subscribe(audiencesOf('ada'), undefined, (f) => got.push(f))
    sub.unsubscribe()
    bus.publish(ada, { type: 'file.deleted', path: 'x' })
    expect(got).toEqual([])
  })
})
