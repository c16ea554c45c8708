/**
 * The file API (SPEC §2): GET /files (indexed files), GET /files/* (a file or a line window;
 * the agent's `memory_get`), and the writes PUT (replace), POST (append) and DELETE. The
 * path is the URL tail after /files/, URL-decoded once; slashes need no encoding. Every
 * unsafe form is refused by the services before any read or write.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { AgentGateway } from '../../agents/agent-gateway.js'
import { etagOf, parsePreconditions, type Precondition } from '../../files/preconditions.js'
import { appError } from '../../shared/errors.js'
import type { Origin } from '../../domain/entry-meta.js'
import { callerOf } from '../plugins/auth.js'
import { AgentHeaders, errorResponses } from '../schemas/common.schema.js'
import {
  FileDeleteResult,
  FileList,
  FileParams,
  FileWindow,
  FileWindowQuery,
  FileWriteBody,
  FileWriteHeaders,
  FileWriteResult,
} from '../schemas/files.schema.js'

export type FilesRoutesOptions = {
  gateway: Pick<AgentGateway, 'listFiles' | 'readFile' | 'put' | 'append' | 'remove' | 'writerFor'>
  /**
   * Largest body a write accepts, in bytes: MNEMO_MAX_FILE_BYTES, what a file may hold. A
   * JSON `{content}` body's escaping counts against it; text/markdown writes a file up to it.
   */
  writeBodyLimitBytes: number
}

const PATH_RULES =
  '"..", ".", absolute paths, backslashes, NUL/control characters, text that is not well-formed Unicode and ' +
  "symlinks leading out of the workspace are refused with 400 PATH_INVALID. Paths are the acting agent's " +
  '(X-Mnemo-Agent); team/… names team memory (MNEMO_TEAM_DIR). An unknown agent gets 404 AGENT_NOT_FOUND on reads ' +
  '(an agent with a token reads as empty); its first accepted write creates it (a refused one creates nothing; ' +
  'past MNEMO_MAX_AGENTS: 409 AGENT_LIMIT). A folder replaced after it was opened (a symlink, another folder) is ' +
  'refused with 409 PATH_CHANGED.'
const WRITE_RULES =
  'Only MEMORY.md and memory/**/*.md (and markdown under MNEMO_EXTRA_PATHS when MNEMO_EXTRA_PATHS_WRITABLE=true) ' +
  'can be written; other sources (session transcripts, read-only extra paths, team memory without ' +
  'MNEMO_TEAM_WRITABLE=true) get 403 PATH_READ_ONLY. ' +
  'Writes to one file are serialised. The answer comes once the change is indexed. A write that would create a ' +
  'folder past MNEMO_MAX_FOLDERS_PER_AGENT gets 409 FOLDER_LIMIT. ' +
  'If-Match: <sha256> or * → 412 PRECONDITION_FAILED when the file does not match; If-None-Match: * → 412 when it exists. ' +
  'A full disk → 507 STORAGE_FULL, the file left as it was. '

/** The write preconditions of a request's If-Match / If-None-Match headers. */
export function preconditions(headers: {
  'if-match'?: string | undefined
  'if-none-match'?: string | undefined
}): Precondition {
  const parsed = parsePreconditions(headers['if-match'], headers['if-none-match'])
  if (parsed.kind === 'invalid') throw appError('VALIDATION_FAILED', parsed.reason)
  return parsed.value
}

const WRITE_MEDIA_TYPES = ['application/json', 'text/markdown', 'text/plain']

const contentOf = (body: string | { content: string }) => (typeof body === 'string' ? body : body.content)
/** The entry fields of an append's JSON body (a raw text body has none). */
const fieldsOf = (body: string | { origin?: Origin | undefined; key?: string | undefined }) =>
  typeof body === 'string' ? {} : { origin: body.origin, key: body.key }

export const filesRoutes: FastifyPluginAsyncZod<FilesRoutesOptions> = async (app, opts) => {
  // Raw markdown bodies for writes (text/plain has a built-in parser).
  app.addContentTypeParser('text/markdown', { parseAs: 'string' }, (_request, body, done) => done(null, body))
  const writeBody = { bodyLimit: opts.writeBodyLimitBytes }

  app.get('/files', {
    schema: {
      operationId: 'listFiles',
      tags: ['files'],
      summary: 'List indexed files',
      description: "The acting agent's indexed files, then the team's (paths under team/).",
      headers: AgentHeaders,
      response: { 200: FileList, ...errorResponses(400, 401, 403, 404, 409, 429, 500, 503) },
    },
    handler: async (request) => ({ files: await opts.gateway.listFiles(callerOf(request)) }),
  })

  app.get('/files/*', {
    schema: {
      operationId: 'readFile',
      tags: ['files'],
      summary: 'Read a memory file or a window of its lines',
      description:
        'Only sources (MEMORY.md, memory/**/*.md, configured extra paths, sessions/**/*.jsonl when a sessions folder ' +
        `is configured) inside their folder. ${PATH_RULES} The ETag header is the file's SHA-256 (for If-Match).`,
      params: FileParams,
      querystring: FileWindowQuery,
      headers: AgentHeaders,
      response: { 200: FileWindow, ...errorResponses(400, 401, 403, 404, 409, 422, 429, 500, 503) },
    },
    handler: async (request, reply) => {
      const window = await opts.gateway.readFile(callerOf(request), request.params['*'], request.query)
      void reply.header('etag', etagOf(window.sha256))
      return window
    },
  })

  app.put('/files/*', {
    ...writeBody,
    schema: {
      operationId: 'writeFile',
      tags: ['files'],
      summary: 'Create or replace a memory file (atomic)',
      description:
        'Writes a temp file, fsyncs it and renames it over the file, so readers and crashes see the old ' +
        `content or the new, never a mix. ${WRITE_RULES}${PATH_RULES}`,
      params: FileParams,
      headers: FileWriteHeaders,
      consumes: WRITE_MEDIA_TYPES,
      body: FileWriteBody,
      response: {
        200: FileWriteResult,
        201: FileWriteResult,
        ...errorResponses(400, 401, 403, 404, 408, 409, 412, 413, 415, 429, 500, 503, 507),
      },
    },
    handler: async (request, reply) => {
      const caller = callerOf(request)
      const pre = preconditions(request.headers)
      if (typeof request.body !== 'string' && (request.body.origin !== undefined || request.body.key !== undefined)) {
        throw appError('VALIDATION_FAILED', 'origin and key are for appends: a replace writes the content as it is')
      }
      const writer = opts.gateway.writerFor(caller.principal)
      const result = await opts.gateway.put(caller, request.params['*'], contentOf(request.body), pre, writer)
      return reply
        .code(result.created ? 201 : 200)
        .header('etag', etagOf(result.sha256))
        .send(result)
    },
  })

  app.post('/files/*', {
    ...writeBody,
    schema: {
      operationId: 'appendFile',
      tags: ['files'],
      summary: 'Append lines to a memory file (created when missing)',
      description:
        'Appends whole lines in one write, then fsyncs: a newline is added before the text when the file does not ' +
        'end with one, and after it when the text does not. startLine/endLine name the appended lines. ' +
        'With an origin to record (agent tokens: agent, unless the body says untrusted or system) or a key, the text ' +
        'is an entry: a metadata comment "<!-- observed: today | status: active | key: K | origin: O -->" goes before ' +
        'it (text that opens with a metadata comment of its own is written as it is). An entry whose text is already ' +
        'an active entry of this memory (whitespace folded) is not written: 200 with duplicate: true, path and lines ' +
        'naming where it is. An entry with a key supersedes the active entry with that key (superseded lists it). ' +
        'origin owner needs the admin token or MNEMO_OWNER_AGENTS (403 PROVENANCE_FORBIDDEN, also for a metadata ' +
        'comment claiming it in the text, here and in PUT). ' +
        `${WRITE_RULES}${PATH_RULES}`,
      params: FileParams,
      headers: FileWriteHeaders,
      consumes: WRITE_MEDIA_TYPES,
      body: FileWriteBody,
      response: {
        200: FileWriteResult,
        ...errorResponses(400, 401, 403, 404, 408, 409, 412, 413, 415, 429, 500, 503, 507),
      },
    },
    handler: async (request, reply) => {
      const content = contentOf(request.body)
      if (content === '') throw appError('VALIDATION_FAILED', 'Nothing to append')
      const pre = preconditions(request.headers)
      const caller = callerOf(request)
      const writer = opts.gateway.writerFor(caller.principal)
      const result = await opts.gateway.append(
        caller,
        request.params['*'],
        content,
        pre,
        writer,
        fieldsOf(request.body),
      )
      return reply.header('etag', etagOf(result.sha256)).send(result)
    },
  })

  app.delete('/files/*', {
    schema: {
      operationId: 'deleteFile',
      tags: ['files'],
      summary: 'Delete a memory file and its chunks',
      description: `${WRITE_RULES}${PATH_RULES}`,
      params: FileParams,
      headers: FileWriteHeaders,
      response: { 200: FileDeleteResult, ...errorResponses(400, 401, 403, 404, 409, 412, 429, 500, 503, 507) },
    },
    handler: async (request) => {
      const pre = preconditions(request.headers)
      const result = await opts.gateway.remove(callerOf(request), request.params['*'], pre)
      return { path: result.path, deleted: true as const, indexed: result.indexed }
    },
  })
}
