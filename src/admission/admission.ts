/**
 * The admission state of the process (issues 16, 30): each agent's request slots and the
 * request-body bytes in flight (each agent's share and the process's budget), built once from
 * MNEMO_AGENT_* and MNEMO_MAX_BODY_BYTES_IN_FLIGHT.
 * The HTTP plugins (http/plugins/admission.ts, load-shedding.ts) decide with it; /metrics
 * reads its snapshot.
 */
import type { Config } from '../config/config.js'
import { createAgentSlots } from './agent-slots.js'
import { createBodyBudget } from './body-budget.js'

/**
 * Requests of one agent that may wait, per slot: 8 slots → 32 waiting. A burst of parallel
 * tool calls waits its turn; a flood past that is refused at once instead of holding
 * thousands of idle connections for a second each.
 */
const QUEUED_PER_SLOT = 4

export type AdmissionOptions = {
  /**
   * An extra overload signal besides event-loop delay and heap (true: shed requests),
   * polled every sample; tests drive shedding with it.
   */
  pressureProbe?: (() => boolean) | undefined
}

export function createAdmission(settings: Config['admission'], opts: AdmissionOptions = {}) {
  const slots = createAgentSlots({
    maxConcurrent: settings.agentMaxConcurrent,
    queueMs: settings.agentQueueMs,
    maxQueued: QUEUED_PER_SLOT * settings.agentMaxConcurrent,
  })
  const bodies = createBodyBudget({
    limitBytes: settings.maxBodyBytesInFlight,
    agentShareBytes: settings.agentBodyShareBytes,
  })
  return {
    settings,
    slots,
    bodies,
    pressureProbe: opts.pressureProbe,
    /** What /metrics shows of admission, read at each scrape. */
    snapshot: () => ({ waiting: slots.waiting(), inProgress: slots.active(), bodyBytes: bodies.inFlight() }),
  }
}

export type Admission = ReturnType<typeof createAdmission>
export type AdmissionSnapshot = ReturnType<Admission['snapshot']>
