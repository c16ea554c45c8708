/**
 * An embedding provider whose query calls can be held at a gate, so a test can keep searches
 * in progress as long as it likes (admission control); it counts the calls in flight.
 */
import type { EmbeddingProvider } from '../../src/providers/types.js'

const DIMS = 8

function unit(): Float32Array {
  const v = new Float32Array(DIMS)
  v[0] = 1
  return v
}

export function createGatedEmbedder() {
  let gate: PromiseWithResolvers<void> | null = null
  let started = 0
  let inFlight = 0
  let maxInFlight = 0
  const provider: EmbeddingProvider = {
    id: 'gated',
    model: 'gated',
    dims: DIMS,
    maxBatch: 16,
    cacheable: false,
    embedBatch: async (texts) => ({ vectors: texts.map(unit), tokens: texts.length }),
    async embedQuery() {
      started++
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      try {
        // Held at the gate, or for a moment, so calls made together would overlap.
        await (gate ? gate.promise : new Promise((resolve) => setTimeout(resolve, 20)))
      } finally {
        inFlight--
      }
      return { vector: unit(), tokens: 1 }
    },
  }
  return {
    provider,
    /** Query embeddings begun so far. */
    started: () => started,
    /** Most query embeddings ever in flight at once. */
    maxInFlight: () => maxInFlight,
    /** Holds every query embedding from now on until open(). */
    hold(): void {
      gate = Promise.withResolvers<void>()
    },
    open(): void {
      gate?.resolve()
      gate = null
    },
  }
}
