import { describe, expect, it } from 'vitest'
import fs from 'node:fs'
import { OPENAPI_FILE, renderOpenApi } from '../../scripts/export-openapi.js'

type Operation = { operationId?: string; tags?: string[]; responses?: Record<string, unknown> }
type Doc = { paths: Record<string, Record<string, Operation>> }

describe('OpenAPI document', () => {
  it('is generated from the route schemas and matches the checked-in openapi/openapi.json', async () => {
    const doc = await renderOpenApi()
    expect(doc).toBe(fs.readFileSync(OPENAPI_FILE, 'utf8'))
  })

  it('gives every route an operationId, a tag, a 2xx schema and error schemas', async () => {
    const doc = JSON.parse(await renderOpenApi()) as Doc
    const ids = new Set<string>()
    for (const [route, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${route}`
        expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+$/)
        expect(ids.has(op.operationId!), `${where} operationId unique`).toBe(false)
        ids.add(op.operationId!)
        expect(op.tags?.length, where).toBe(1)
        const statuses = Object.keys(op.responses ?? {})
        expect(
          statuses.some((s) => s.startsWith('2')),
          where,
        ).toBe(true)
        // The probes answer whoever asks (/ready with fewer details without a token).
        if (route !== '/health' && route !== '/ready')
          expect(
            statuses.some((s) => s.startsWith('4')),
            where,
          ).toBe(true)
      }
    }
    expect([...ids].sort()).toEqual([
      'appendFile',
      'callMcp',
      'deleteFile',
      'deleteUser',
      'exportMemory',
      'flushMemory',
      'forgetSession',
      'getHealth',
      'getIndexStatus',
      'getMetrics',
      'getReady',
      'giveFeedback',
      'importMemory',
      'listAgents',
      'listFiles',
      'listSearches',
      'listUsers',
      'readFile',
      'searchMemory',
      'streamEvents',
      'supersedeEntry',
      'triggerIndex',
      'writeFile',
    ])
  })
})
