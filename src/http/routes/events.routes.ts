/**
 * GET /events (docs/manual.md, "Change notifications"): a Server-Sent Events stream of what happens
 * to the acting agent's memory and the team's. A stream starts with the events missed since
 * Last-Event-ID (or `event: reset` when they are gone), then `event: ready` carrying the id
 * of now, then events as they happen and a heartbeat comment on idle streams. Streams take
 * no agent slot (route-classes.ts: they would hold it for hours); they are capped per agent
 * and in total instead (stream-limits.ts) and ended when the server closes.
 */
import { PassThrough } from 'node:stream'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { EventBus } from '../../events/event-bus.js'
import { openEventStream } from '../../events/event-stream.js'
import type { EventSettings } from '../../events/event-settings.js'
import { createStreamLimits } from '../../events/stream-limits.js'
import { callerOf } from '../plugins/auth.js'
import { errorResponses } from '../schemas/common.schema.js'
import { ChangeEvent, EventsHeaders } from '../schemas/events.schema.js'

/** A control event (no `id:` line unless given, so a client's Last-Event-ID is kept). */
const control = (type: string, data: Record<string, unknown>, id?: string) =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`

export const eventsRoutes: FastifyPluginAsyncZod<{
  events: { bus: Pick<EventBus, 'subscribe'>; settings: EventSettings }
}> = async (app, opts) => {
  const { bus, settings } = opts.events
  const streams = createStreamLimits({ perAgent: settings.perAgent, total: settings.total })
  // Before the server stops taking connections: an open stream would keep close() waiting.
  app.addHook('preClose', async () => streams.closeAll())

  app.get('/events', {
    schema: {
      operationId: 'streamEvents',
      tags: ['events'],
      summary: 'Stream change notifications (Server-Sent Events)',
      description:
        "Announces changes to the acting agent's memory and the team's as Server-Sent Events: `file.written`, " +
        '`file.deleted`, `file.indexed`, `file.unindexed`, `rebuild.finished`, `entry.superseded`, `session.forgotten` (each `data:` line is a ' +
        "ChangeEvent). Ids are per agent stream, `<process>-<agent>-<n>` with n counting that stream's events " +
        "(the agent's own, the user's it acts for (X-Mnemo-User) and the team's), so they show nothing of other " +
        'agents or users. The stream starts with the ' +
        'events after `Last-Event-ID` (or `event: reset` when they are no longer kept, or the id is from another ' +
        'process, an older id form or another agent: re-read what you track), then `event: ready` whose id is ' +
        'the position now. A comment ' +
        `line every ${settings.heartbeatMs / 1000} s keeps idle streams open. A client that falls ` +
        `${settings.queue} events behind gets \`event: overflow\` and the stream ends: reconnect with ` +
        `Last-Event-ID. At most ${settings.perAgent} streams per agent and ${settings.total} in all: more get ` +
        '429 EVENT_STREAMS_LIMIT. Streams end when the server shuts down.',
      headers: EventsHeaders,
      response: {
        200: {
          description: "An endless text/event-stream; each event's `data:` is JSON (ChangeEvent)",
          content: { 'text/event-stream': { schema: ChangeEvent } },
        },
        ...errorResponses(400, 401, 403, 421, 429, 503),
      },
    },
    handler: async (request, reply) => {
      const { agent, user } = callerOf(request)
      const release = streams.admit(agent)
      const body = new PassThrough()
      let unsubscribe = () => undefined as void
      let forget = () => undefined as void
      const stream = openEventStream({
        body,
        queue: settings.queue,
        heartbeatMs: settings.heartbeatMs,
        onEnd: () => {
          unsubscribe()
          forget()
          release()
        },
      })
      forget = streams.track(stream)
      const sub = bus.subscribe({ agent, user }, request.headers['last-event-id'], (frame) => stream.send(frame))
      unsubscribe = sub.unsubscribe
      // What came before goes past the queue's cap: the replay window bounds it.
      if (sub.resume.kind === 'reset') stream.send(control('reset', { reason: sub.resume.reason }), true)
      else for (const frame of sub.resume.frames) stream.send(frame, true)
      stream.send(control('ready', { agent }, sub.currentId), true)
      reply.raw.once('close', stream.end)
      return (
        reply
          .header('content-type', 'text/event-stream; charset=utf-8')
          .header('cache-control', 'no-cache, no-transform')
          .header('x-accel-buffering', 'no')
          // The connection ends with the stream, so a server closing never waits for it idle.
          .header('connection', 'close')
          // The 200 schema documents the events' JSON; what is sent is the SSE stream around it.
          .send(body as never)
      )
    },
  })
}
