import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import type { RebuildCommit, RebuildTarget } from '../store/port.js'
import { createForeground } from '../shared/foreground.js'
import { createRebuilder, type RebuilderDeps } from './rebuild.js'
import { emptySyncResult } from './sync-result.js'

/** A new index that records what the rebuild asks of it. */
function fakeTarget() {
  const calls: string[] = []
  const target: RebuildTarget = {
    applyChanges: async () => undefined,
    putVectors: () => undefined,
    setMeta: (key, value) => void calls.push(`setMeta ${key}=${value}`),
    storesVectors: () => false,
    listFiles: () => [],
    getFile: () => undefined,
    pendingVectors: () => [],
    pendingVectorCount: () => 0,
    finish: async () => void calls.push('finish'),
    commit: async (opts: RebuildCommit) => {
      calls.push('commit')
      opts.detach()
    },
    abort: () => void calls.push('abort'),
  }
  return { target, calls }
}

function rebuilderWith(deps: Partial<RebuilderDeps> & Pick<RebuilderDeps, 'live'>) {
  const targets = new Set<unknown>()
  const rebuilder = createRebuilder({
    indexer: { sync: async () => emptySyncResult(true, 'test') },
    targets: {
      add: (t) => void targets.add(t),
      remove: (t) => void targets.delete(t),
      writes: { idle: () => true, whenIdle: async () => undefined },
    },
    identity: () => 'settings-1',
    readers: { suspend: async () => undefined, resume: () => undefined },
    foreground: createForeground(),
    log: pino({ level: 'silent' }),
    ...deps,
  })
  return { rebuilder, targets }
}

const signal = () => new AbortController().signal

describe('rebuild', () => {
  it('begins, writes the identity, finishes and commits the new index, which stops being a write target', async () => {
    const { target, calls } = fakeTarget()
    const { rebuilder, targets } = rebuilderWith({ live: { beginRebuild: () => target } })
    await rebuilder.rebuild('test', signal())
    expect(calls).toEqual(['setMeta identity=settings-1', 'finish', 'commit'])
    expect(targets.size).toBe(0)
  })

  it('aborts the new index and stops writing to it when a pass fails; the error is the answer', async () => {
    const { target, calls } = fakeTarget()
    const { rebuilder, targets } = rebuilderWith({
      live: { beginRebuild: () => target },
      indexer: {
        sync: async () => {
          expect(targets.has(target)).toBe(true)
          throw new Error('disk read failed')
        },
      },
    })
    await expect(rebuilder.rebuild('test', signal())).rejects.toThrow('disk read failed')
    expect(calls).toEqual(['abort'])
    expect(targets.size).toBe(0)
  })

  it('answers with the engine error when the new index cannot be begun, adding no write target', async () => {
    const { rebuilder, targets } = rebuilderWith({
      live: {
        beginRebuild: () => {
          throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
        },
      },
    })
    await expect(rebuilder.rebuild('test', signal())).rejects.toMatchObject({ code: 'SQLITE_FULL' })
    expect(targets.size).toBe(0)
  })
})
