/**
 * Queues of work per key, taken from in turn (pure): `take()` returns the oldest item of
 * the next key in a round robin over the keys that have work. The search pool queues its
 * calls per index file, so one agent with many searches in flight waits behind its own, not
 * every other agent behind it (issue 16, fair sharing).
 */
export function createFairQueue<T>() {
  const queues = new Map<string, T[]>()
  /** Keys with work, in the order they get their next turn. */
  const order: string[] = []

  function queueOf(key: string): T[] {
    let q = queues.get(key)
    if (!q) {
      q = []
      queues.set(key, q)
      order.push(key)
    }
    return q
  }

  return {
    /** Adds `item` at the end of `key`'s queue. */
    push(key: string, item: T): void {
      queueOf(key).push(item)
    },
    /** Puts `item` back at the front of `key`'s queue (work taken that must run again). */
    putBack(key: string, item: T): void {
      queueOf(key).unshift(item)
    },
    /**
     * The next item in turn that `accept` takes (the oldest such of the first key holding
     * one; keys passed over keep their turn), or undefined when there is none.
     */
    take(accept: (item: T) => boolean = () => true): T | undefined {
      for (let turn = 0; turn < order.length; turn++) {
        const key = order[turn] as string
        const q = queues.get(key) as T[]
        const at = q.findIndex(accept)
        if (at < 0) continue
        const [item] = q.splice(at, 1)
        order.splice(turn, 1)
        if (q.length > 0) order.push(key)
        else queues.delete(key)
        return item
      }
      return undefined
    },
    /** The item `take()` would return next, left in place. */
    peek: (): T | undefined => {
      const key = order[0]
      return key === undefined ? undefined : queues.get(key)?.[0]
    },
    /** Whether `key` has queued work (any key when none is given). */
    has: (key?: string): boolean => (key === undefined ? order.length > 0 : queues.has(key)),
  }
}

export type FairQueue<T> = ReturnType<typeof createFairQueue<T>>
