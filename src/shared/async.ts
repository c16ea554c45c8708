/** Small async helpers for keeping the event loop responsive during long synchronous work. */

/** Resolves on the next turn of the event loop, after pending I/O callbacks. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * A time slicer for CPU-bound loops: `await slicer.maybeYield()` yields only when the current
 * slice has run longer than `sliceMs`, so short jobs pay nothing and long ones never hold
 * the event loop for more than about one slice.
 */
export function createSlicer(sliceMs: number) {
  let sliceStart = performance.now()
  return {
    async maybeYield(): Promise<void> {
      if (performance.now() - sliceStart < sliceMs) return
      await yieldToEventLoop()
      sliceStart = performance.now()
    },
  }
}
