/** POST /flush → services.flush (SPEC §4). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { AgentGateway } from '../../agents/agent-gateway.js'
import { callerOf } from '../plugins/auth.js'
import { AgentHeaders, errorResponses } from '../schemas/common.schema.js'
import { FlushRequest, FlushResult } from '../schemas/flush.schema.js'

export const flushRoutes: FastifyPluginAsyncZod<{
  gateway: Pick<AgentGateway, 'flush' | 'writerFor'>
  bodyLimitBytes: number
}> = async (app, opts) => {
  app.post('/flush', {
    bodyLimit: opts.bodyLimitBytes,
    schema: {
      operationId: 'flushMemory',
      tags: ['files'],
      summary: 'Append notes to the day file before compaction, indexed before the answer',
      description:
        "Appends the notes to the acting agent's memory/<date>.md under a heading " +
        '"## HH:MM:SS · agent A · session S" (A: the acting agent; for main only when agentId is "main") in one write, ' +
        'fsyncs and indexes it, then answers the exact lines. Concurrent flushes land whole, one after another. ' +
        'With flushId, a retry appends nothing twice (also across restarts and midnight): it answers the first ' +
        "attempt's lines with replayed: true. A flushId names one content: one already in the day file with other " +
        'notes under its marker (or another agent or session in the heading, where the request names one) is 409 ' +
        'FLUSH_ID_CONFLICT, nothing appended. ' +
        'An empty flush ({} or no notes) appends nothing: it syncs pending changes and answers when the index is current. ' +
        'A body agentId naming another agent than the acting one is 403 AGENT_FORBIDDEN (nothing is appended). ' +
        'A flush that creates the agent is checked first: a refused one creates nothing; past MNEMO_MAX_AGENTS, 409 AGENT_LIMIT. ' +
        'With an origin to record (agent tokens: agent, unless the body says untrusted or system) or a key, a metadata ' +
        "comment under the heading (and marker) makes the notes an entry, observed on the day file's date. Notes " +
        'already an active entry of this memory (whitespace folded; each of entries on its own) are not written ' +
        'again: skipped says where they are, and a flush that is all duplicates answers 200 duplicate: true with ' +
        'nothing written (a retried flushId stays a replay). A key supersedes the active entry with that key.',
      body: FlushRequest,
      headers: AgentHeaders,
      response: { 200: FlushResult, ...errorResponses(400, 401, 403, 404, 408, 409, 413, 415, 429, 500, 503, 507) },
    },
    // No body at all means an empty flush; Fastify hands the validator null.
    preValidation: async (request) => {
      request.body ??= {}
    },
    handler: (request) => {
      const caller = callerOf(request)
      return opts.gateway.flush(caller, request.body, opts.gateway.writerFor(caller.principal))
    },
  })
}
