/**
 * GET /files (indexed files) and GET /files/* (a file or a line window; the agent's
 * `memory_get`). The path is the URL tail after /files/, URL-decoded once; slashes need no
 * encoding. Every unsafe form is refused by the file service before any read.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { FileService } from '../../files/file-service.js'
import { appError } from '../../shared/errors.js'
import { errorResponses } from '../schemas/common.schema.js'
import { FileList, FileParams, FileWindow, FileWindowQuery } from '../schemas/files.schema.js'

export const filesRoutes: FastifyPluginAsyncZod<{ files: FileService }> = async (app, opts) => {
  app.get('/files', {
    schema: {
      operationId: 'listFiles',
      tags: ['files'],
      summary: 'List indexed files',
      response: { 200: FileList, ...errorResponses(401, 500) },
    },
    handler: async () => ({ files: opts.files.list() }),
  })

  app.get('/files/*', {
    schema: {
      operationId: 'readFile',
      tags: ['files'],
      summary: 'Read a memory file or a window of its lines',
      description:
        'Only memory files (MEMORY.md, memory/**/*.md, configured extra paths) inside the workspace. ' +
        '"..", ".", absolute paths, backslashes, NUL/control characters and symlinks leading out of the ' +
        'workspace are refused with 400 PATH_INVALID.',
      params: FileParams,
      querystring: FileWindowQuery,
      response: { 200: FileWindow, ...errorResponses(400, 401, 404, 422, 500) },
    },
    handler: async (request) => {
      const result = await opts.files.read(request.params['*'], request.query)
      switch (result.kind) {
        case 'ok': {
          const { kind: _kind, ...window } = result
          return window
        }
        case 'invalid':
          throw appError('PATH_INVALID', `Invalid path: ${result.reason}`)
        case 'not-found':
          throw appError('FILE_NOT_FOUND')
        case 'too-large':
          throw appError('FILE_TOO_LARGE', undefined, { details: { sizeBytes: result.sizeBytes } })
      }
    },
  })
}
