/** GET /events: the request headers and the events a stream carries (docs/manual.md, "Change notifications"). */
import { z } from 'zod'
import { AgentHeaders } from './common.schema.js'

export const EventsHeaders = AgentHeaders.extend({
  'last-event-id': z
    .string()
    .max(200)
    .optional()
    .describe(
      "The id of the last event received on this agent's stream (an EventSource sends it when it reconnects): the " +
        'events after it are sent first when the replay window (the last 1,000 events of every agent) still holds ' +
        'them; otherwise, or when the id is from before a restart, of another agent or in the older ' +
        '`<process>-<n>` form, the stream starts with `event: reset`',
    ),
})

/**
 * The JSON in each event's `data:` line (documentation: the stream itself is SSE text).
 * Stream-control events (`ready`, `reset`, `overflow`) carry `type` and the fields their
 * description names.
 */
export const ChangeEvent = z
  .object({
    id: z
      .string()
      .describe(
        "The event id, also on the `id:` line: `<process>-<agent>-<n>`, n increasing by one per event of this agent's " +
          "stream (its own and the team's; a team event has an id in each agent's sequence)",
      ),
    type: z
      .enum([
        'file.written',
        'file.deleted',
        'file.indexed',
        'file.unindexed',
        'rebuild.finished',
        'entry.superseded',
        'session.forgotten',
      ])
      .describe(
        'file.written: the write API or a flush changed the file on disk; file.deleted: the API deleted it; ' +
          'file.indexed: the index took in its current content (after an API write, or a change on disk the ' +
          'watcher or a sync found); file.unindexed: the index dropped it (deleted on disk or through the API, or ' +
          'grown past MNEMO_MAX_FILE_BYTES); rebuild.finished: a full re-index ended (ok: it went live); ' +
          'entry.superseded: a supersede or a write with a key marked an entry superseded (its lines now); ' +
          'session.forgotten: POST /forget removed a flush entry of the session (its lines before)',
      ),
    space: z
      .enum(['agent', 'user', 'team'])
      .describe("Whose memory: the agent's own (shared), the acting user's, or the team's"),
    agent: z.string().optional().describe('The agent whose memory it is (spaces "agent" and "user")'),
    user: z.string().optional().describe('The user whose memory it is (space "user": only its own stream hears it)'),
    path: z.string().optional().describe('The file, as /files names it (team files under `team/`); not on rebuilds'),
    sha256: z
      .string()
      .optional()
      .describe('SHA-256 (hex) of the file content: on file.indexed, and on file.written except flushes'),
    sizeBytes: z.number().int().optional().describe('The file size in bytes after the change'),
    chunks: z.number().int().optional().describe('file.indexed: the chunks the index holds for the file'),
    ok: z.boolean().optional().describe('rebuild.finished: whether the new index went live'),
    files: z.number().int().optional().describe('rebuild.finished (ok): files the rebuild indexed'),
    error: z.string().optional().describe('rebuild.finished (not ok): why it failed; the previous index serves'),
    startLine: z.number().int().optional().describe('entry.superseded, session.forgotten: first line of the entry'),
    endLine: z.number().int().optional().describe('entry.superseded, session.forgotten: last line of the entry'),
    sessionId: z.string().optional().describe('session.forgotten: the session'),
    time: z.string().describe('When the event was published (ISO 8601, UTC)'),
  })
  .meta({ id: 'ChangeEvent' })
