/**
 * The limits of change notifications (GET /events): of the one event bus every space
 * publishes to, and of the streams that read it. The defaults are fixed here
 * (docs/manual.md, "Change notifications"); tests shrink them through the container's
 * overrides.
 */

export type EventSettings = {
  /** Events kept for resuming with Last-Event-ID, across every agent (the replay window). */
  replay: number
  /** Frames that may wait for one slow client before its stream ends with `overflow`. */
  queue: number
  /** Period of the heartbeat comment on an idle stream, in ms. */
  heartbeatMs: number
  /** Streams one agent may hold open at once. */
  perAgent: number
  /** Streams of every agent together. */
  total: number
}

/**
 * 1,000 events cover a burst of writes across agents for a client reconnecting within
 * seconds (at about 300 bytes each: 300 KB); 256 frames wait for a slow client before it is
 * cut off; 15 s stays below the 30–60 s idle timeouts of common proxies; 4 streams per
 * agent (a dashboard and a few tabs or tools), 64 in all (each holds a socket).
 */
export const EVENT_DEFAULTS: EventSettings = { replay: 1000, queue: 256, heartbeatMs: 15_000, perAgent: 4, total: 64 }
