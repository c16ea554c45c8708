import fs from 'node:fs'
import path from 'node:path'
import createClient from 'openapi-fetch'
import { afterEach, describe, expect, it } from 'vitest'
import type { paths } from '../../src/generated/api-types.js'
import { startService, type ServiceProcess } from '../helpers/service-process.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'

const TOKEN = 'client-token-0123456789'
const services: ServiceProcess[] = []
afterEach(() => {
  for (const s of services.splice(0)) s.kill('SIGKILL')
})

/** The request example the checked-in document gives for POST /search. */
function searchExample(): paths['/search']['post']['requestBody']['content']['application/json'] {
  const doc = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../openapi/openapi.json'), 'utf8')) as {
    components: { schemas: Record<string, { example?: unknown }> }
  }
  return doc.components.schemas.SearchRequestInput?.example as never
}

describe('a client generated from openapi/openapi.json (openapi-typescript + openapi-fetch)', () => {
  it('searches with the document’s example and reads and writes files by {path}, against a running server', async () => {
    const ws = createTempWorkspace()
    fs.rmSync(ws.root, { recursive: true })
    const service = startService(
      { MNEMO_WORKSPACE: ws.root, MNEMO_DATA_DIR: ws.dataDir, MNEMO_API_TOKEN: TOKEN },
      ws.base,
    )
    services.push(service)
    const client = createClient<paths>({
      baseUrl: await service.ready(),
      headers: { authorization: `Bearer ${TOKEN}` },
    })

    // The example workspace (created on first start) answers the document's example.
    const found = await client.POST('/search', { body: searchExample() })
    expect(found.response.status).toBe(200)
    expect(found.data?.results[0]?.path).toBe('MEMORY.md')

    const read = await client.GET('/files/{path}', { params: { path: { path: 'MEMORY.md' }, query: { lines: 1 } } })
    expect(read.data?.text).toBe('# MEMORY.md')

    // The generator encodes the slash (memory%2F2026-03-01.md); the server takes it.
    const day = 'memory/2026-03-01.md'
    const written = await client.PUT('/files/{path}', {
      params: { path: { path: day } },
      body: { content: '- The staging Redis port is 6380.\n' },
    })
    expect(written.response.status).toBe(201)
    expect(written.data?.path).toBe(day)
    const back = await client.GET('/files/{path}', { params: { path: { path: day } } })
    expect(back.data).toMatchObject({ path: day, text: '- The staging Redis port is 6380.' })
    expect(back.response.url).toContain('memory%2F2026-03-01.md')

    const missing = await client.GET('/files/{path}', { params: { path: { path: 'memory/none.md' } } })
    expect(missing.response.status).toBe(404)
    expect(missing.error).toMatchObject({ code: 'FILE_NOT_FOUND' })
  })
})
