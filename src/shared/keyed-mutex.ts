/**
 * Serialises async work per key (a file path): work for one key runs one at a time in
 * arrival order, work for different keys runs concurrently. Keys without waiting work are
 * forgotten, so the map holds only busy keys. `around` wraps each holder's work in a lock
 * shared with other processes (store/port.ts withPathLock), taken once this one is held.
 */
export function createKeyedMutex(opts: { around?: <T>(key: string, fn: () => Promise<T>) => Promise<T> } = {}) {
  const tails = new Map<string, Promise<void>>()

  async function run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve()
    let release!: () => void
    const mine = new Promise<void>((resolve) => (release = resolve))
    const tail = previous.then(() => mine)
    tails.set(key, tail)
    await previous
    try {
      return await (opts.around ? opts.around(key, fn) : fn())
    } finally {
      release()
      if (tails.get(key) === tail) tails.delete(key)
    }
  }

  /** Runs `fn` holding every key in `keys` (taken in sorted order, so callers never deadlock). */
  function runAll<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort()
    const nest = (i: number): Promise<T> => (i === sorted.length ? fn() : run(sorted[i] as string, () => nest(i + 1)))
    return nest(0)
  }

  /** Resolves once no key is held or waited for. */
  async function whenIdle(): Promise<void> {
    while (tails.size > 0) await Promise.all(tails.values())
  }

  return { run, runAll, whenIdle, busyKeys: (): number => tails.size }
}

export type KeyedMutex = ReturnType<typeof createKeyedMutex>
