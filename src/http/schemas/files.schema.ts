/** GET /files and GET /files/:path (SPEC §2). */
import { z } from 'zod'
import { EntryOutcome, KeyField, OriginField } from './entries.schema.js'
import { AgentHeaders } from './common.schema.js'
import { Source, Space } from './search.schema.js'

export const FileInfo = z
  .object({
    path: z
      .string()
      .describe("Workspace-relative POSIX path; team memory under team/, a granted agent's under agents/<id>/"),
    source: Source,
    space: Space,
    sizeBytes: z.number().int(),
    mtime: z.string().describe('Last modification time seen by the indexer (ISO 8601)'),
    sha256: z.string().describe('SHA-256 of the indexed content'),
    chunks: z.number().int(),
    lines: z.number().int(),
  })
  .meta({ id: 'FileInfo' })

export const FileList = z.object({ files: z.array(FileInfo) }).meta({ id: 'FileList' })

export const FileParams = z.object({
  '*': z
    .string()
    .describe(
      'Workspace-relative path, e.g. memory/2026-02-16.md, team/memory/2026-03-01.md for team memory, or agents/<id>/memory/2026-03-01.md for the memory of an agent this one has a read grant for (MNEMO_AGENT_GRANTS; writes there are 403 PATH_READ_ONLY); slashes may be sent as they are or encoded (%2F)',
    ),
})

/** A window of lines; `number` is z.number() for JSON input, z.coerce.number() for query strings. */
const lineWindow = (number: () => z.ZodNumber | z.ZodCoercedNumber) => ({
  from: number().int().min(1).optional().describe('First line to return, 1-based (default 1)'),
  lines: number().int().min(1).max(100_000).optional().describe('How many lines (default: to the end)'),
})

export const FileWindowQuery = z.strictObject(lineWindow(() => z.coerce.number()))

/** The same window in a JSON body (the MCP tool memory_get): numbers only, nothing coerced. */
export const LineWindow = z.strictObject(lineWindow(() => z.number()))

export const FileWindow = z
  .object({
    path: z.string(),
    from: z.number().int().describe('First line returned'),
    to: z.number().int().describe('Last line returned (from − 1 when the window is past the end)'),
    totalLines: z.number().int(),
    text: z.string().describe('The lines, joined with \\n'),
    sha256: z.string().describe('SHA-256 of the whole file as read'),
  })
  .meta({ id: 'FileWindow' })

/** PUT/POST /files/*: raw text (text/markdown, text/plain) or JSON `{content}`. */
export const FileWriteBody = z
  .union([
    z.string().describe('The text itself, sent as text/markdown or text/plain'),
    z.strictObject({
      content: z.string().describe('The text to write (UTF-8)'),
      origin: OriginField.optional().describe(
        "Appends only: the entry's origin (see OriginField). With an origin (agent tokens always have one) or a key, the " +
          'text is appended as an entry under a metadata comment, observed today',
      ),
      key: KeyField.optional().describe("Appends only: the entry's key; the active entry with it is superseded"),
    }),
  ])
  .meta({ id: 'FileWriteBody', example: { content: '- The staging Redis port is 6380.\n' } })

export const FileWriteHeaders = AgentHeaders.extend({
  'if-match': z
    .string()
    .optional()
    .describe('Write only if the file exists with this SHA-256 (quoted or bare; several comma-separated), or "*"'),
  'if-none-match': z.string().optional().describe('"*": write only if the file does not exist yet'),
})

export const FileWriteResult = z
  .object({
    path: z.string(),
    sha256: z.string().describe('SHA-256 of the whole file after the write (also the ETag)'),
    sizeBytes: z.number().int(),
    totalLines: z.number().int(),
    startLine: z.number().int().describe('First line this write produced (1 for a replace)'),
    endLine: z.number().int().describe('Last line this write produced (startLine − 1 when it produced none)'),
    created: z.boolean().describe('The file did not exist before'),
    indexed: z
      .boolean()
      .describe('The change is searchable; false only if indexing failed (the next sync picks it up)'),
    ...EntryOutcome,
  })
  .meta({ id: 'FileWriteResult' })

export const FileDeleteResult = z
  .object({ path: z.string(), deleted: z.literal(true), indexed: z.boolean() })
  .meta({ id: 'FileDeleteResult' })
