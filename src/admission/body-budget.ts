/**
 * A process-wide budget of request-body bytes in flight (issue 16): a request with a body
 * reserves its declared Content-Length (or its route's limit when the length is unknown,
 * chunked) before a byte of it is read, and gives it back when the request ends, however it
 * ends. A request that does not fit is refused at once (the caller answers 503 OVERLOADED):
 * waiting would hold its connection open while a body flood lasts.
 */

export function createBodyBudget(limitBytes: number) {
  let inFlight = 0
  return {
    /**
     * Reserves `bytes`; returns the idempotent release, or null when they do not fit. A
     * reservation of 0 bytes always fits.
     */
    tryReserve(bytes: number): (() => void) | null {
      if (bytes > 0 && inFlight + bytes > limitBytes) return null
      inFlight += bytes
      let held = true
      return () => {
        if (held) inFlight -= bytes
        held = false
      }
    },
    /** Bytes reserved now. */
    inFlight: () => inFlight,
  }
}

export type BodyBudget = ReturnType<typeof createBodyBudget>

/**
 * The bytes a request's body may take, from its headers: the declared Content-Length, the
 * route limit for a body of unknown length (Transfer-Encoding), 0 without a body. Null for
 * a Content-Length that is not a non-negative integer (Node's parser refuses those first).
 */
export function declaredBodyBytes(
  headers: { 'content-length'?: string | undefined; 'transfer-encoding'?: string | undefined },
  routeLimit: number,
): { bytes: number; known: boolean } | null {
  const length = headers['content-length']
  if (length !== undefined) {
    if (!/^\d+$/.test(length.trim())) return null
    return { bytes: Number(length), known: true }
  }
  if (headers['transfer-encoding'] !== undefined) return { bytes: routeLimit, known: false }
  return { bytes: 0, known: true }
}
