/** GET /export and POST /import: memory as tar archives. */
import { z } from 'zod'

/** The tar archive, as OpenAPI names a binary body. */
export const TarArchive = z
  .unknown()
  .meta({ type: 'string', format: 'binary' })
  .describe('A tar archive (ustar/pax, uncompressed) of markdown files')

export const ImportQuery = z.object({
  existing: z
    .enum(['replace', 'keep'])
    .default('replace')
    .describe(
      "What happens to a file that exists: `replace` (default) writes the archive's version over it, as restoring " +
        'a backup does; `keep` leaves it as it is and writes only files that do not exist. Files the archive does ' +
        'not hold are never deleted',
    ),
})

export const ImportedFile = z.object({
  path: z.string().describe("The file's name in the archive"),
  outcome: z
    .enum(['created', 'replaced', 'unchanged', 'kept'])
    .describe(
      '`created`: a new file; `replaced`: written over a different one; `unchanged`: the file already held ' +
        'these bytes (not written); `kept`: it exists and existing=keep left it',
    ),
  indexed: z
    .boolean()
    .describe('false when indexing the written file failed: it is on disk and the next sync indexes it'),
})

export const ImportResult = z
  .object({
    files: z.array(ImportedFile).describe('Every file of the archive, in archive order'),
    written: z.number().int().describe('Files created or replaced'),
    indexed: z.boolean().describe('Every written file is indexed (searchable now)'),
  })
  .meta({ id: 'ImportResult' })
