/** Runs async work with at most `max` calls in progress; the others wait their turn in arrival order. */
export function createLimiter(max: number) {
  let active = 0
  const queue: (() => void)[] = []

  return {
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (active >= max) await new Promise<void>((resolve) => queue.push(resolve))
      else active++
      try {
        return await fn()
      } finally {
        // The slot passes straight to the next waiter, so a newcomer cannot take it first.
        const next = queue.shift()
        if (next) next()
        else active--
      }
    },
    /** Calls in progress and waiting. */
    load: (): { active: number; waiting: number } => ({ active, waiting: queue.length }),
  }
}

export type Limiter = ReturnType<typeof createLimiter>
