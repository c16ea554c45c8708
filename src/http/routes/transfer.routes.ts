/**
 * GET /export and POST /import: an agent's markdown memory (or, for the admin, every
 * space's) as a tar archive, and back (transfer-service.ts). The archive layout is in
 * archive-layout.ts; the import body limit in transfer-config.ts.
 */
import type { Readable } from 'node:stream'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { AGENT_HEADER } from '../../shared/agent-id.js'
import { appError } from '../../shared/errors.js'
import type { ArchiveScope } from '../../transfer/archive-layout.js'
import type { TransferService } from '../../transfer/transfer-service.js'
import { callerOf } from '../plugins/auth.js'
import type { Principal } from '../../agents/token-auth.js'
import type { Writer } from '../../files/provenance.js'
import { AgentHeaders, errorResponses } from '../schemas/common.schema.js'
import { ImportQuery, ImportResult, TarArchive } from '../schemas/transfer.schema.js'
import type { FastifyRequest } from 'fastify'

export type TransferRoutesOptions = {
  transfer: TransferService
  /** What a request's token may write (provenance.ts): an import may not bring owner claims beyond it. */
  writerFor: (principal: Principal) => Writer
  /** Largest archive an import takes, in bytes (transfer-config.ts importBodyLimit). */
  importBodyLimitBytes: number
}

const TAR = 'application/x-tar'

const LAYOUT =
  "An agent token (or the admin token with X-Mnemo-Agent) works on that agent's own files, named as GET /files " +
  "names them (MEMORY.md, memory/…), and the admin on its users' too (users/<id>/…); a request acting for a user " +
  "(X-Mnemo-User, or a token bound to one) on that user's files only (users/<id>/…); the admin token without " +
  'X-Mnemo-Agent (or no token configured) on the whole ' +
  'deployment, one top-level folder per space: main/… (the workspace), agents/<id>/… (MNEMO_AGENTS_DIR) and team/… ' +
  "(MNEMO_TEAM_DIR), each agent's users inside its folder. "

/**
 * Whose files: the acting user's for a request acting for one; the deployment's for the
 * admin not acting for a named agent; else the acting agent's, with its users' for the admin.
 */
function scopeOf(request: FastifyRequest): ArchiveScope {
  const { principal, agent, user } = callerOf(request)
  if (user !== null) return { kind: 'user', agent, user }
  const admin = principal.role === 'admin'
  const named = request.headers[AGENT_HEADER] !== undefined
  return admin && !named ? { kind: 'deployment' } : { kind: 'agent', agent, users: admin }
}

const isStream = (body: unknown): body is Readable =>
  typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function'

export const transferRoutes: FastifyPluginAsyncZod<TransferRoutesOptions> = async (app, opts) => {
  // Only tar bodies here, read as a stream (the JSON parser would take a JSON body).
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(TAR, (_request, payload, done) => done(null, payload))
  // Exports being streamed, cut short when the server closes: the close waits for every
  // response to end, and a client that stops reading would never let an export end.
  const streaming = new Set<Readable>()
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
    for (const archive of streaming) archive.destroy()
  })

  app.get('/export', {
    schema: {
      operationId: 'exportMemory',
      tags: ['files'],
      summary: 'Export markdown memory as a tar archive',
      description:
        `Streams the markdown memory files (not session transcripts) as an uncompressed tar archive. ${LAYOUT}` +
        'Each space is synced first, so files edited on disk are included. A failure while streaming (after the 200), ' +
        'or the server shutting down, cuts the archive short: it then lacks the end-of-archive marker and POST ' +
        '/import refuses it.',
      headers: AgentHeaders,
      produces: [TAR],
      response: { 200: TarArchive, ...errorResponses(400, 401, 403, 404, 409, 429, 500, 503) },
    },
    handler: async (request, reply) => {
      const archive = await opts.transfer.exportArchive(scopeOf(request))
      if (closing) {
        archive.destroy()
        throw appError('SHUTTING_DOWN')
      }
      streaming.add(archive)
      archive.once('close', () => streaming.delete(archive))
      return reply.type(TAR).header('content-disposition', 'attachment; filename="mnemo-export.tar"').send(archive)
    },
  })

  app.post('/import', {
    bodyLimit: opts.importBodyLimitBytes,
    schema: {
      operationId: 'importMemory',
      tags: ['files'],
      summary: 'Import markdown memory from a tar archive',
      description:
        `Writes the markdown files of a tar archive (Content-Type: ${TAR}), as GET /export makes them. ${LAYOUT}` +
        'All or nothing: the whole archive is read and checked before any file is written, and one bad entry ' +
        'refuses it with nothing written — 400 ARCHIVE_INVALID (not a tar archive, compressed, empty or cut short), ' +
        '400 ARCHIVE_ENTRY_INVALID (a symbolic or hard link, device or other non-file entry, a name twice or as ' +
        'both a file and a folder, text that is not UTF-8 or holds NUL, a modification time that is not a date, ' +
        'team/ or agents/ where the deployment has none), 400 AGENT_INVALID (agents/<id>/ without an agent id), 400 PATH_INVALID or ' +
        '403 PATH_READ_ONLY (the path rules of PUT /files; "..", absolute names and the like), 413 ' +
        'PAYLOAD_TOO_LARGE (a file over MNEMO_MAX_FILE_BYTES, or the archive over half of ' +
        'MNEMO_MAX_BODY_BYTES_IN_FLIGHT), 409 FOLDER_LIMIT (the folders a space would need that it does not ' +
        'have, beside those it has, pass MNEMO_MAX_FOLDERS_PER_AGENT: no folder or agent is created); ' +
        '403 PROVENANCE_FORBIDDEN (a metadata comment claiming origin owner that the file it replaces does not ' +
        'hold, from a token that may not write owner entries); details.entry names the entry. Folder entries and ./ prefixes are ' +
        'accepted. The archive counts as it arrives against the bodies in flight: half of ' +
        'MNEMO_MAX_BODY_BYTES_IN_FLIGHT for all of one agent (429 AGENT_BUSY past it, so a full-size archive ' +
        'needs the agent to have no other upload on its way) and the whole for everyone (503 OVERLOADED); it ' +
        'must arrive within MNEMO_REQUEST_TIMEOUT_MS of the request and without a pause over ' +
        'MNEMO_BODY_IDLE_TIMEOUT_MS (408 REQUEST_TIMEOUT). These close the connection. Each file is then written atomically (temp file, fsync, rename) with the modification time ' +
        'the archive gives it, and indexed: the answer comes once the files are searchable. Flush markers in day ' +
        'files are kept. A failure while writing (507 STORAGE_FULL, 409 AGENT_LIMIT, or FOLDER_LIMIT over folders ' +
        'other writes made meanwhile, 500 on a failing disk) puts back the files written before it, and the file ' +
        'it failed on if that one was already replaced, then removes the folders it made that are empty again ' +
        '(agents it created stay).',
      headers: AgentHeaders,
      querystring: ImportQuery,
      consumes: [TAR],
      body: TarArchive,
      response: {
        200: ImportResult,
        ...errorResponses(400, 401, 403, 404, 408, 409, 413, 415, 429, 500, 503, 507),
      },
    },
    handler: async (request, reply) => {
      const body = request.body
      if (!isStream(body)) throw appError('ARCHIVE_INVALID', 'The body is empty: send a tar archive')
      try {
        const files = await opts.transfer.importArchive(scopeOf(request), body, {
          keep: request.query.existing === 'keep',
          writer: opts.writerFor(callerOf(request).principal),
        })
        const written = files.filter((f) => f.outcome === 'created' || f.outcome === 'replaced')
        return { files, written: written.length, indexed: written.every((f) => f.indexed) }
      } catch (err) {
        // A refusal before the body's end leaves the rest unread: the connection is not reused.
        if (!request.raw.readableEnded) void reply.header('connection', 'close')
        throw err
      }
    },
  })
}
