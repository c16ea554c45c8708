/** GET /files and GET /files/:path (SPEC §2). */
import { z } from 'zod'
import { Source } from './search.schema.js'

export const FileInfo = z
  .object({
    path: z.string().describe('Workspace-relative POSIX path'),
    source: Source,
    sizeBytes: z.number().int(),
    mtime: z.string().describe('Last modification time seen by the indexer (ISO 8601)'),
    sha256: z.string().describe('SHA-256 of the indexed content'),
    chunks: z.number().int(),
    lines: z.number().int(),
  })
  .meta({ id: 'FileInfo' })

export const FileList = z.object({ files: z.array(FileInfo) }).meta({ id: 'FileList' })

export const FileParams = z.object({
  '*': z.string().describe('Workspace-relative path, e.g. memory/2026-02-16.md (slashes need no encoding)'),
})

export const FileWindowQuery = z.strictObject({
  from: z.coerce.number().int().min(1).optional().describe('First line to return, 1-based (default 1)'),
  lines: z.coerce.number().int().min(1).max(100_000).optional().describe('How many lines (default: to the end)'),
})

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
