/**
 * The request-body bytes in flight (issues 16 and 30): a body holds the bytes that have
 * arrived so far — not its declared length, nor its route's limit — until its request ends,
 * however it ends. Two limits apply to every byte: one agent's share (by default half of
 * MNEMO_MAX_BODY_BYTES_IN_FLIGHT, so the other agents always keep the other half) and the
 * process-wide budget. A byte past either is refused at once (the caller answers 429
 * AGENT_BUSY or 503 OVERLOADED): waiting would hold its connection open while a flood lasts.
 */

/** Which limit a body's next bytes would pass: the agent's share, or the process's budget. */
export type BodyRefusal = 'agent' | 'process'

export type BodyBudgetLimits = {
  /** Bytes all bodies together may hold (MNEMO_MAX_BODY_BYTES_IN_FLIGHT). */
  limitBytes: number
  /** Bytes the bodies of one agent may hold (Config['admission'].agentBodyShareBytes). */
  agentShareBytes: number
}

/**
 * The key of requests that act for no agent (the probes, OAuth discovery): they share one
 * share. Agent ids start with a letter or digit, so none is empty.
 */
export const NO_AGENT = ''

export function createBodyBudget(limits: BodyBudgetLimits) {
  let inFlight = 0
  const byAgent = new Map<string, number>()
  const heldBy = (agent: string) => byAgent.get(agent) ?? 0

  /** Which limit `bytes` more of `agent` would pass now, or null when they fit. */
  function refusal(agent: string, bytes: number): BodyRefusal | null {
    if (bytes <= 0) return null
    if (heldBy(agent) + bytes > limits.agentShareBytes) return 'agent'
    if (inFlight + bytes > limits.limitBytes) return 'process'
    return null
  }

  return {
    limits,
    refusal,
    /**
     * The account of one request's body, acting for `agent`: take() holds bytes as they
     * arrive (or says which limit they would pass, holding nothing), release() gives back
     * all it holds, once however often it is called; after it, take() holds nothing.
     */
    open(agent: string) {
      let held = 0
      let open = true
      return {
        take(bytes: number): BodyRefusal | null {
          if (!open) return null
          const refused = refusal(agent, bytes)
          if (refused) return refused
          held += bytes
          inFlight += bytes
          byAgent.set(agent, heldBy(agent) + bytes)
          return null
        },
        release(): void {
          if (!open) return
          open = false
          inFlight -= held
          const left = heldBy(agent) - held
          if (left > 0) byAgent.set(agent, left)
          else byAgent.delete(agent)
          held = 0
        },
        held: () => held,
      }
    },
    /** Bytes held by every body now. */
    inFlight: () => inFlight,
    heldBy,
  }
}

export type BodyBudget = ReturnType<typeof createBodyBudget>
export type BodyAccount = ReturnType<BodyBudget['open']>

/** A request's body as its headers announce it. */
export type DeclaredBody = { kind: 'none' } | { kind: 'sized'; bytes: number } | { kind: 'chunked' }

/**
 * The body a request's headers announce: none, a Content-Length (`sized`), or one of unknown
 * length (Transfer-Encoding, `chunked`). Null for a Content-Length that is not a
 * non-negative integer (Node's parser refuses those first).
 */
export function declaredBody(headers: {
  'content-length'?: string | undefined
  'transfer-encoding'?: string | undefined
}): DeclaredBody | null {
  const length = headers['content-length']
  if (length !== undefined) {
    if (!/^\d+$/.test(length.trim())) return null
    const bytes = Number(length)
    return bytes === 0 ? { kind: 'none' } : { kind: 'sized', bytes }
  }
  if (headers['transfer-encoding'] !== undefined) return { kind: 'chunked' }
  return { kind: 'none' }
}
