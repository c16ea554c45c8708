/**
 * A deterministic reranker for tests: scores a document by whether it contains `favourite`
 * (0.9) or not (0.1). It can fail or answer slowly.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { RerankProvider } from '../../src/providers/types.js'

export function createFakeReranker(favourite: string) {
  let failure: Error | null = null
  let delayMs = 0
  let calls = 0
  const provider: RerankProvider = {
    id: 'fake-rerank',
    model: 'fake',
    async rerank(_query, documents, { signal }) {
      calls++
      if (delayMs > 0) await sleep(delayMs, undefined, { signal })
      if (failure) throw failure
      return { scores: documents.map((d) => (d.includes(favourite) ? 0.9 : 0.1)), tokens: documents.length * 5 }
    },
  }
  return {
    provider,
    calls: () => calls,
    fail: (error = new Error('reranker down')) => (failure = error),
    slow: (ms: number) => (delayMs = ms),
  }
}
