/**
 * When to retry a provider call, and after how long (pure). Retried: network errors,
 * timeouts, 408, 429 and 5xx. A Retry-After header (seconds or an HTTP date) is honoured;
 * otherwise the delay is exponential with full jitter. Retry-After beyond MAX_WAIT_MS, or
 * any attempt past the configured maximum, gives up: an outage must not turn into an
 * unbounded queue of paid calls.
 */

/** First backoff step, doubled per attempt (ms). */
export const BASE_DELAY_MS = 500
/** Longest exponential backoff step (ms). */
export const MAX_BACKOFF_MS = 8000
/** Longest Retry-After mnemo waits; a server asking for more is treated as down (ms). */
export const MAX_WAIT_MS = 60_000

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501)
}

/** Milliseconds a Retry-After header asks for, or null when absent or unreadable. */
export function parseRetryAfter(header: string | null, nowMs: number): number | null {
  if (header === null || header.trim() === '') return null
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(header)
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs)
}

/**
 * Delay before retry number `attempt` (0-based), or null to give up.
 * `random` is in [0, 1) (Math.random in production).
 */
export function retryDelayMs(opts: {
  attempt: number
  maxRetries: number
  retryAfterMs: number | null
  random: number
}): number | null {
  if (opts.attempt >= opts.maxRetries) return null
  if (opts.retryAfterMs !== null) return opts.retryAfterMs <= MAX_WAIT_MS ? opts.retryAfterMs : null
  return Math.floor(opts.random * Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** opts.attempt))
}
