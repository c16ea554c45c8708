/**
 * Prometheus metrics (SPEC §7) on prom-client, in a registry of mnemo's own (never the
 * library's global one, so two apps in one process — tests — do not share counts). Label
 * sets are bounded: routes are route templates, agents are not labels (there may be
 * thousands); per-index gauges are the main agent's.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { AdmissionSnapshot } from '../admission/admission.js'
import type { SyncOutcome } from '../indexing/sync-coordinator.js'
import type { SearchResponse } from '../search/types.js'

/** Seconds; from a cached keyword search (~1 ms) to a slow provider call (seconds). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const STAGES = ['keyword', 'embed', 'vector', 'rerank', 'total'] as const

/** What GET /index reports of the main agent, read at each scrape. */
export type IndexSnapshot = {
  files: number
  chunks: number
  vectorsPending: number
  completedSyncs: number
  lastSync: { ok: boolean; full: boolean; durationMs: number } | null
}

/** The open spaces, read at each scrape. */
export type SpacesSnapshot = {
  /** Agents open besides main (at most MNEMO_MAX_OPEN_AGENTS). */
  open: number
  /** Open spaces (main, the team, agents) rescanning because no inotify watch was left. */
  rescanning: number
}

/** Why a request was refused before it ran (admission control). */
export type RejectReason = 'agent_busy' | 'overloaded' | 'body_budget' | 'agent_body_share'

export function createMetrics(
  opts: {
    admissionSnapshot?: () => AdmissionSnapshot
  } = {},
) {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'mnemo_' })

  const httpDuration = new Histogram({
    name: 'mnemo_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  })
  const searchStage = new Histogram({
    name: 'mnemo_search_stage_duration_seconds',
    help: 'Time in each search stage (keyword, embed, vector, rerank, total), REST and MCP',
    labelNames: ['stage'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  })
  const searches = new Counter({
    name: 'mnemo_searches_total',
    help: 'Searches by the mode that ran and whether they answered anything',
    labelNames: ['mode', 'answered'] as const,
    registers: [registry],
  })
  const degraded = new Counter({
    name: 'mnemo_search_degraded_total',
    help: 'Searches that fell back because a provider stage failed or timed out (stage: vector, rerank, expand)',
    labelNames: ['stage'] as const,
    registers: [registry],
  })
  const providerTokens = new Counter({
    name: 'mnemo_provider_tokens_total',
    help: 'Tokens the providers reported (kind: embedding, rerank; use: search, index)',
    labelNames: ['kind', 'use'] as const,
    registers: [registry],
  })
  const providerErrors = new Counter({
    name: 'mnemo_provider_errors_total',
    help: 'Provider calls that failed or timed out after retries (kind: embedding, rerank; use: search, index)',
    labelNames: ['kind', 'use'] as const,
    registers: [registry],
  })
  const embeddedChunks = new Counter({
    name: 'mnemo_embedded_chunks_total',
    help: 'Chunk texts sent to the embedding provider by syncs and writes (cache hits excluded)',
    registers: [registry],
  })
  const searchErrors = new Counter({
    name: 'mnemo_search_errors_total',
    help: 'Searches that failed (answered with an error)',
    registers: [registry],
  })
  const syncDuration = new Histogram({
    name: 'mnemo_sync_duration_seconds',
    help: 'Syncs (full=false) and full rebuilds (full=true) of every agent and the team, by outcome',
    labelNames: ['full', 'ok'] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800],
    registers: [registry],
  })
  const watcherRestarts = new Counter({
    name: 'mnemo_watcher_restarts_total',
    help: 'File watchers that failed and were restarted',
    registers: [registry],
  })
  const flushes = new Counter({
    name: 'mnemo_flushes_total',
    help: 'Flushes with notes, by whether they were replays of an earlier flushId',
    labelNames: ['replayed'] as const,
    registers: [registry],
  })
  const searchLog = new Counter({
    name: 'mnemo_search_log_entries_total',
    help: 'Searches handed to the search log, by outcome: written, dropped (it could not keep up) or failed (the write failed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  })
  const feedback = new Counter({
    name: 'mnemo_search_feedback_total',
    help: 'Feedback on searches (POST /feedback), by whether the results helped',
    labelNames: ['useful'] as const,
    registers: [registry],
  })

  const rejected = new Counter({
    name: 'mnemo_requests_rejected_total',
    help: 'Requests refused before they ran: agent_busy (429, the agent had too many in progress), overloaded (503, event-loop delay or heap), body_budget (503, too many body bytes in flight), agent_body_share (429, the agent held its share of the body bytes in flight)',
    labelNames: ['reason'] as const,
    registers: [registry],
  })
  const snippetsShortened = new Counter({
    name: 'mnemo_search_snippets_shortened_total',
    help: 'Snippets shortened or left empty to keep a search answer within MNEMO_SNIPPET_BYTES_PER_SEARCH',
    registers: [registry],
  })
  const admission = opts.admissionSnapshot
  if (admission) {
    const gauge = (name: string, help: string, read: (s: AdmissionSnapshot) => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read(admission()))
        },
      })
    gauge('mnemo_agent_requests_waiting', 'Requests waiting for a slot of their agent', (s) => s.waiting)
    gauge('mnemo_agent_requests_in_progress', 'Requests holding a slot of their agent', (s) => s.inProgress)
    gauge(
      'mnemo_request_body_bytes_in_flight',
      'Request-body bytes that have arrived and are held by requests in progress (MNEMO_MAX_BODY_BYTES_IN_FLIGHT)',
      (s) => s.bodyBytes,
    )
  }

  /** Gauges of main's index (GET /index) and of the open spaces, read at each scrape. */
  function readSpaces(sources: { index: () => Promise<IndexSnapshot>; spaces: () => SpacesSnapshot }): void {
    const gauge = (name: string, help: string, read: (s: IndexSnapshot) => number | null) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          const value = read(await sources.index())
          if (value === null) this.reset()
          else this.set(value)
        },
      })
    gauge('mnemo_index_files', 'Files in the main index', (s) => s.files)
    gauge('mnemo_index_chunks', 'Chunks in the main index', (s) => s.chunks)
    gauge('mnemo_index_vectors_pending', 'Chunks of the main index waiting for a vector', (s) => s.vectorsPending)
    gauge('mnemo_syncs_completed', 'Syncs and rebuilds of the main index finished since start', (s) => s.completedSyncs)
    gauge('mnemo_last_sync_duration_seconds', 'Duration of the last sync of the main index', (s) =>
      s.lastSync ? s.lastSync.durationMs / 1000 : null,
    )
    gauge('mnemo_last_sync_ok', '1 when the last sync of the main index succeeded, 0 when it failed', (s) =>
      s.lastSync ? Number(s.lastSync.ok) : null,
    )
    new Gauge({
      name: 'mnemo_agents_open',
      help: 'Agent spaces open besides main (each holds its index, folder and watches; at most MNEMO_MAX_OPEN_AGENTS)',
      registers: [registry],
      collect() {
        this.set(sources.spaces().open)
      },
    })
    new Gauge({
      name: 'mnemo_spaces_rescanning',
      help: 'Open spaces (main, team, agents) whose watcher found no inotify watch left and that rescan periodically',
      registers: [registry],
      collect() {
        this.set(sources.spaces().rescanning)
      },
    })
  }

  return {
    registry,
    /**
     * Reads main's index status and the open spaces at each scrape, once the agents exist
     * (the composition root builds them after the metrics their spaces report to).
     */
    readSpaces,
    httpDuration,
    /** Records one search's outcome. */
    observeSearch(res: SearchResponse): void {
      for (const stage of STAGES) {
        if (stage === 'total' || res.timingsMs[stage] > 0) searchStage.observe({ stage }, res.timingsMs[stage] / 1000)
      }
      searches.inc({ mode: res.mode, answered: String(res.results.length > 0) })
      if (res.snippetsShortened) snippetsShortened.inc(res.snippetsShortened)
      const codes = res.degradedCodes ?? {}
      if (codes.vector) degraded.inc({ stage: 'vector' })
      if (codes.rerank) degraded.inc({ stage: 'rerank' })
      if (codes.expand) degraded.inc({ stage: 'expand' })
      // A degraded vector stage while an index is rebuilt is no provider failure.
      if (codes.vector && codes.vector !== 'INDEX_REBUILDING') providerErrors.inc({ kind: 'embedding', use: 'search' })
      if (codes.rerank) providerErrors.inc({ kind: 'rerank', use: 'search' })
      if (res.usage.embeddingTokens > 0) {
        providerTokens.inc({ kind: 'embedding', use: 'search' }, res.usage.embeddingTokens)
      }
      if (res.usage.rerankTokens > 0) providerTokens.inc({ kind: 'rerank', use: 'search' }, res.usage.rerankTokens)
    },
    searchFailed: () => searchErrors.inc(),
    /** For agent spaces (agent-space.ts observer). */
    observer: {
      syncEnded(o: SyncOutcome): void {
        syncDuration.observe({ full: String(o.full), ok: String(o.ok) }, o.durationMs / 1000)
        if (o.embedded > 0) embeddedChunks.inc(o.embedded)
        if (o.embeddingTokens > 0) providerTokens.inc({ kind: 'embedding', use: 'index' }, o.embeddingTokens)
        if (o.embedFailed) providerErrors.inc({ kind: 'embedding', use: 'index' })
      },
      writeIndexed(r: { embedded: number; embeddingTokens: number; embedError?: string | undefined }): void {
        if (r.embedded > 0) embeddedChunks.inc(r.embedded)
        if (r.embeddingTokens > 0) providerTokens.inc({ kind: 'embedding', use: 'index' }, r.embeddingTokens)
        if (r.embedError !== undefined) providerErrors.inc({ kind: 'embedding', use: 'index' })
      },
      watcherRestarted: () => watcherRestarts.inc(),
    },
    flushed: (replayed: boolean) => flushes.inc({ replayed: String(replayed) }),
    searchLogged: (outcome: 'written' | 'dropped' | 'failed', entries: number) => searchLog.inc({ outcome }, entries),
    feedbackGiven: (useful: boolean) => feedback.inc({ useful: String(useful) }),
    /** Counts a request refused by admission control. */
    rejected: (reason: RejectReason) => rejected.inc({ reason }),
  }
}

export type Metrics = ReturnType<typeof createMetrics>
