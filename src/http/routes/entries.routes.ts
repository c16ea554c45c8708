/** POST /supersede and POST /forget (SPEC §11): keeping memory right (files/entry-service.ts). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { AgentGateway } from '../../agents/agent-gateway.js'
import { etagOf } from '../../files/preconditions.js'
import { AGENT_HEADER } from '../../shared/agent-id.js'
import { appError } from '../../shared/errors.js'
import { callerOf } from '../plugins/auth.js'
import { AgentHeaders, errorResponses } from '../schemas/common.schema.js'
import { ForgetRequest, ForgetResult, SupersedeRequest, SupersedeResult } from '../schemas/entries.schema.js'
import { FileWriteHeaders } from '../schemas/files.schema.js'
import { preconditions } from './files.routes.js'

export const entriesRoutes: FastifyPluginAsyncZod<{
  gateway: Pick<AgentGateway, 'supersede' | 'forget' | 'writerFor'>
  bodyLimitBytes: number
}> = async (app, opts) => {
  app.post('/supersede', {
    bodyLimit: opts.bodyLimitBytes,
    schema: {
      operationId: 'supersedeEntry',
      tags: ['files'],
      summary: 'Replace a fact: mark the old entry superseded in place and write the new one after it',
      description:
        'Names the old entry by path and a line of it (startLine, endLine), or by its key (the newest active entry ' +
        'with that key; path narrows it to one file). In one atomic write of that file (If-Match: <sha256> → 412 ' +
        "PRECONDITION_FAILED when the file changed underneath, nothing written) the old entry's metadata comment " +
        'says status: superseded (lines outside any entry get a comment of their own) and the new entry follows it: ' +
        '"<!-- observed: today | status: active | key | origin -->" and the content. The new entry keeps the old ' +
        "one's key unless key is given; other active entries with that key are superseded too. An entry superseded " +
        'already is 412; lines that are no entry (blank, a heading, across two entries) or a key no active entry has ' +
        'is 404 ENTRY_NOT_FOUND. Searchable when it answers: searches return the new entry and leave the old one out ' +
        'unless includeSuperseded. origin as for appends (owner: 403 PROVENANCE_FORBIDDEN without the right).',
      body: SupersedeRequest,
      headers: FileWriteHeaders,
      response: {
        200: SupersedeResult,
        ...errorResponses(400, 401, 403, 404, 408, 409, 412, 413, 415, 429, 500, 503, 507),
      },
    },
    handler: async (request, reply) => {
      const caller = callerOf(request)
      const pre = preconditions(request.headers)
      const result = await opts.gateway.supersede(caller, request.body, pre, opts.gateway.writerFor(caller.principal))
      return reply.header('etag', etagOf(result.sha256)).send(result)
    },
  })

  app.post('/forget', {
    schema: {
      operationId: 'forgetSession',
      tags: ['files'],
      summary: 'Remove every flush entry a session wrote',
      description:
        "Removes from the acting agent's day files (memory/YYYY-MM-DD.md; the acting user's, under users/<id>/, " +
        'with X-Mnemo-User) every flush entry whose heading names the ' +
        'session — heading, marker and notes — each file in one atomic write, and answers once the index no longer ' +
        'holds them, with what was removed. The admin token without X-Mnemo-Agent (or no token configured) forgets ' +
        'the session in every agent (their shared memory), unless everyAgent is false; everyAgent true from anyone else is 400. A retried ' +
        'flushId of a removed flush is written again.',
      body: ForgetRequest,
      headers: AgentHeaders,
      response: { 200: ForgetResult, ...errorResponses(400, 401, 403, 404, 408, 413, 415, 429, 500, 503, 507) },
    },
    handler: async (request) => {
      const caller = callerOf(request)
      const deploymentWide =
        caller.principal.role === 'admin' && request.headers[AGENT_HEADER] === undefined && caller.user === null
      const everyAgent = request.body.everyAgent ?? deploymentWide
      if (everyAgent && !deploymentWide) {
        throw appError('VALIDATION_FAILED', 'everyAgent needs the admin token without X-Mnemo-Agent')
      }
      return opts.gateway.forget(everyAgent ? null : caller, request.body.sessionId)
    },
  })
}
