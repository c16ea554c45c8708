/** Entries (SPEC §11): the fields writes take, supersede and forget. */
import { z } from 'zod'
import { isValidKey, MAX_KEY_CHARS, ORIGINS } from '../../domain/entry-meta.js'
import { Label } from './common.schema.js'

export const OriginField = z
  .enum(ORIGINS)
  .describe(
    'Where the entry comes from, recorded in its metadata: agent (the default for agent tokens), untrusted (content ' +
      'the agent was handed), system, or owner (the admin token, or an agent in MNEMO_OWNER_AGENTS; else 403 ' +
      'PROVENANCE_FORBIDDEN, nothing written)',
  )

export const KeyField = z
  .string()
  .max(MAX_KEY_CHARS)
  .refine(isValidKey, 'must be one line without "|" or "-->", without spaces at its ends')
  .describe(
    "A fact's lineage: writing an entry with a key supersedes the active entry with that key in the same memory",
  )

export const Location = z
  .object({ path: z.string(), startLine: z.number().int(), endLine: z.number().int() })
  .meta({ id: 'EntryLocation' })

/** What entry writes answer besides the write itself. */
export const EntryOutcome = {
  duplicate: z
    .boolean()
    .optional()
    .describe('The text is already an active entry of this memory (see skipped): nothing was written'),
  skipped: z
    .array(Location.extend({ entry: z.number().int().optional().describe('Its index in entries') }))
    .optional()
    .describe('Notes not written again, and where the same text already is'),
  superseded: z.array(Location).optional().describe('Entries this write marked superseded (the same key)'),
}

export const SupersedeRequest = z
  .strictObject({
    path: z.string().min(1).optional().describe('The file of the old entry (with startLine), or where its key is'),
    startLine: z.number().int().min(1).optional().describe('A line of the old entry (1-based)'),
    endLine: z.number().int().min(1).optional().describe('Its last line (default startLine)'),
    key: KeyField.optional().describe('The old entry by its key (without startLine); the new entry keeps it'),
    content: z.string().min(1).describe('The new entry, as markdown'),
    origin: OriginField.optional(),
  })
  .refine((b) => b.startLine !== undefined || b.key !== undefined, {
    message: 'name the old entry: path and startLine, or key',
  })
  .refine((b) => b.startLine === undefined || b.path !== undefined, { message: 'startLine needs path' })
  .meta({
    id: 'SupersedeRequest',
    example: {
      key: 'reply-style',
      content: '- Prefer concise implementation summaries unless more detail is requested.',
    },
  })

export const SupersedeResult = z
  .object({
    path: z.string(),
    sha256: z.string().describe('SHA-256 of the file after the write (also the ETag)'),
    entry: Location.describe('The new entry: active, observed today'),
    superseded: z.array(Location).describe('The old entry, then any other active entry with the same key'),
    indexed: z.boolean(),
  })
  .meta({ id: 'SupersedeResult' })

export const ForgetRequest = z
  .strictObject({
    sessionId: Label.describe('The session whose flushes go: every flush entry whose heading names it'),
    everyAgent: z
      .boolean()
      .optional()
      .describe(
        'Forget in every agent (default: true for the admin token without X-Mnemo-Agent, which alone may ask ' +
          "for it; false keeps to the acting agent's memory)",
      ),
  })
  .meta({ id: 'ForgetRequest', example: { sessionId: 'session-42' } })

export const ForgetResult = z
  .object({
    sessionId: z.string(),
    removed: z
      .array(
        Location.extend({
          agent: z.string(),
          flushId: z.string().nullable(),
        }),
      )
      .describe('The flush entries removed, with their lines before the removal'),
    files: z.number().int().describe('Day files changed'),
  })
  .meta({ id: 'ForgetResult' })
