/** POST /flush (SPEC §4). */
import { z } from 'zod'
import { Label } from './common.schema.js'
import { EntryOutcome, KeyField, OriginField } from './entries.schema.js'

const isCalendarDate = (v: string) => {
  const d = new Date(`${v}T00:00:00Z`)
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v
}

/** The fields of a flush, before the rule that content and entries exclude each other. */
export const FlushFields = z.strictObject({
  content: z.string().optional().describe('The notes, as markdown'),
  entries: z.array(z.string()).max(10_000).optional().describe('The notes as separate entries, one or more lines each'),
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD')
    .refine(isCalendarDate, 'must be a calendar date')
    .optional()
    .describe('Day file to append to (default: today in the server time zone)'),
  agentId: Label.optional().describe(
    'The acting agent (the heading always names it; main only when this says "main"): any other name is 403 ' +
      'AGENT_FORBIDDEN',
  ),
  sessionId: Label.optional().describe('Named in the entry heading'),
  flushId: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1–128 characters of A–Z a–z 0–9 . _ : -')
    .optional()
    .describe(
      'Idempotency key: a retried flush with the same id and notes appends nothing and answers the first lines; ' +
        'the id with other notes is 409 FLUSH_ID_CONFLICT',
    ),
  origin: OriginField.optional(),
  key: KeyField.optional(),
})

/** Content and entries exclude each other. */
export const oneOfContentOrEntries = (b: { content?: string | undefined; entries?: string[] | undefined }) =>
  b.content === undefined || b.entries === undefined

export const FlushRequest = FlushFields.refine(oneOfContentOrEntries, {
  message: 'send content or entries, not both',
}).meta({
  id: 'FlushRequest',
  example: { entries: ['Decided: keep qwen-max as the default model'], flushId: 'session-42-turn-7' },
})

export const FlushResult = z
  .object({
    indexed: z.boolean().describe('The notes are searchable (false only if indexing failed; the next sync retries)'),
    drained: z.boolean().optional().describe('An empty flush: pending changes were synced, nothing was appended'),
    path: z.string().optional().describe('The day file, e.g. memory/2026-02-16.md'),
    startLine: z.number().int().optional().describe('The entry heading line'),
    endLine: z.number().int().optional().describe('The last line of the notes'),
    replayed: z.boolean().optional().describe('The flushId had already landed: nothing was appended'),
    ...EntryOutcome,
  })
  .meta({ id: 'FlushResult' })
