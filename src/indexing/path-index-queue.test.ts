import { describe, expect, it } from 'vitest'
import { createPathIndexQueue } from './path-index-queue.js'

const tick = async (n = 3) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r))
}

function fakeIndex() {
  const calls: { path: string; finish: (err?: Error) => void }[] = []
  const index = (path: string) =>
    new Promise<void>((resolve, reject) => calls.push({ path, finish: (err) => (err ? reject(err) : resolve()) }))
  return { calls, index }
}

const noSettle = async () => undefined

describe('path index queue', () => {
  it('runs one pass per path at a time and lets requests made during it share the next', async () => {
    const { calls, index } = fakeIndex()
    const queue = createPathIndexQueue({ index, settle: noSettle })
    const first = queue.request('a.md')
    await tick()
    const during = [queue.request('a.md'), queue.request('a.md'), queue.request('a.md')]
    const other = queue.request('b.md')
    await tick()
    expect(calls.map((c) => c.path)).toEqual(['a.md', 'b.md'])
    let duringDone = false
    void Promise.all(during).then(() => (duringDone = true))
    calls[0]?.finish()
    await first
    await tick()
    // The follow-up started only after the first pass ended, and it alone answers them.
    expect(calls.map((c) => c.path)).toEqual(['a.md', 'b.md', 'a.md'])
    expect(duringDone).toBe(false)
    calls[2]?.finish()
    await Promise.all(during)
    calls[1]?.finish()
    await other
    expect(calls).toHaveLength(3)
  })

  it('waits for the writes queued on the file before it reads, and serves all of them with one pass', async () => {
    const { calls, index } = fakeIndex()
    let settle!: () => void
    const queue = createPathIndexQueue({ index, settle: () => new Promise<void>((r) => (settle = r)) })
    const requests = [queue.request('a.md')]
    await tick()
    requests.push(queue.request('a.md'), queue.request('a.md'))
    expect(calls).toHaveLength(0)
    settle()
    await tick()
    expect(calls).toHaveLength(1)
    calls[0]?.finish()
    await Promise.all(requests)
  })

  it('passes a failure to the callers of that pass and still runs the next one', async () => {
    const { calls, index } = fakeIndex()
    const queue = createPathIndexQueue({ index, settle: noSettle })
    const failing = queue.request('a.md')
    await tick()
    const next = queue.request('a.md')
    calls[0]?.finish(new Error('disk'))
    await expect(failing).rejects.toThrow('disk')
    await tick()
    calls[1]?.finish()
    await expect(next).resolves.toBeUndefined()
  })

  it('rejects the callers when settling fails (the shared lock is out of reach), and a later request runs a pass', async () => {
    const { calls, index } = fakeIndex()
    let fail = true
    const settle = async () => {
      if (fail) throw new Error('database unreachable')
    }
    const queue = createPathIndexQueue({ index, settle })
    const refused = [queue.request('a.md'), queue.request('a.md')]
    for (const r of refused) await expect(r).rejects.toThrow('database unreachable')
    expect(calls).toHaveLength(0)
    fail = false
    const later = queue.request('a.md')
    await tick()
    expect(calls.map((c) => c.path)).toEqual(['a.md'])
    calls[0]?.finish()
    await expect(later).resolves.toBeUndefined()
  })
})
