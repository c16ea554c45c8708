/**
 * Indexes single files for the write API, batched per path. A request resolves after an
 * index pass that started reading the file after the request was made. Passes for a path
 * run one at a time; requests made while one runs share the next. Before a pass reads, it
 * waits for `settle(path)` (the writes already queued on the file's lock), so eight agents
 * appending to one day file cost about one re-index per batch of appends, not one each.
 */

export type PathIndexQueueDeps = {
  index: (path: string) => Promise<unknown>
  /** Resolves once the writes queued for `path` so far are done. */
  settle: (path: string) => Promise<void>
}

export function createPathIndexQueue(deps: PathIndexQueueDeps) {
  /** Per path: the pass reading now, and the one waiting to start (which new requests join). */
  type State = { running: Promise<void> | null; waiting: PromiseWithResolvers<void> | null }
  const states = new Map<string, State>()

  async function runNext(path: string, s: State, next: PromiseWithResolvers<void>): Promise<void> {
    await s.running?.catch(() => undefined)
    await deps.settle(path)
    // From here on the pass reads the file: later requests need the pass after it.
    s.waiting = null
    const pass = deps.index(path).then(() => undefined)
    s.running = pass
    try {
      await pass
      next.resolve()
    } catch (err) {
      next.reject(err)
    } finally {
      if (s.running === pass) s.running = null
      if (!s.running && !s.waiting) states.delete(path)
    }
  }

  function request(path: string): Promise<void> {
    let s = states.get(path)
    if (!s) {
      s = { running: null, waiting: null }
      states.set(path, s)
    }
    if (!s.waiting) {
      s.waiting = Promise.withResolvers<void>()
      void runNext(path, s, s.waiting)
    }
    return s.waiting.promise
  }

  return { request }
}

export type PathIndexQueue = ReturnType<typeof createPathIndexQueue>
