/**
 * Why a search stage fell back, as a stable code beside the reason for people (the response's
 * `degradedCodes` beside `degraded`): clients and metrics compare the code, never the message.
 */
import { isAppError } from '../shared/errors.js'

export const DEGRADED_CODES = [
  'PROVIDER_FAILED',
  'PROVIDER_TIMEOUT',
  'EMBEDDING_UNAVAILABLE',
  'INDEX_REBUILDING',
] as const
export type DegradedCode = (typeof DEGRADED_CODES)[number]

/** The stages that may fall back: the query's embedding, the rerank, the query's variants. */
export type DegradedStage = 'vector' | 'rerank' | 'expand'

/** A stage's failure: the provider error's own code when it is a degraded code, else PROVIDER_FAILED. */
export function degradedCodeOf(err: unknown): DegradedCode {
  const code = isAppError(err) ? err.code : undefined
  return code === 'PROVIDER_TIMEOUT' || code === 'EMBEDDING_UNAVAILABLE' ? code : 'PROVIDER_FAILED'
}

/** A stage that fell back: why, for people and as a code. */
export type Degradation = { reason: string; code: DegradedCode }

/** The degradation a stage's failure `err` causes; `fallback` is the reason when `err` has no message. */
export const degradationOf = (err: unknown, fallback: string): Degradation => ({
  reason: err instanceof Error ? err.message : fallback,
  code: degradedCodeOf(err),
})
