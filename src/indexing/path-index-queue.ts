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

  /**
   * Runs the pass `next` stands for. It settles whatever happens: a failure to settle (the
   * lock shared with other replicas lives in the database, which may be away) rejects it
   * like a failed pass, and the path's next request starts a pass of its own.
   */
  async function runNext(path: string, s: State, next: PromiseWithResolvers<void>): Promise<void> {
    await s.running?.catch(() => undefined)
    let pass: Promise<void> | null = null
    try {
      await deps.settle(path)
      // From here on the pass reads the file: later requests need the pass after it.
      s.waiting = null
      pass = deps.index(path).then(() => undefined)
      s.running = pass
      await pass
      next.resolve()
    } catch (err) {
      if (s.waiting === next) s.waiting = null
      next.reject(err)
    } finally {
      if (pass && s.running === pass) s.running = null
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
