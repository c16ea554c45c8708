import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import type { StepOptions } from '../../src/store/port.js'
import { waitFor } from '../helpers/wait-for.js'
import { databaseUrl, dropSchema, freshSchema, testPostgresEngine } from './pg-engine.js'

const STEPS: StepOptions = { between: async () => undefined }
const schemas: string[] = []
afterEach(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s)
})

async function query<R extends object>(sql: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: databaseUrl() })
  await client.connect()
  try {
    return (await client.query<R>(sql)).rows
  } finally {
    await client.end()
  }
}

describe('a rebuild whose replica died', () => {
  it('is retired and deleted by the next start once its lease lapsed, and the live index serves on', async () => {
    const schema = freshSchema()
    schemas.push(schema)
    const first = await testPostgresEngine(null, schema)
    const live = await first.engine.openSpace({ kind: 'agent', id: 'main' })
    await live.setMeta('identity', 'live')
    const next = await live.beginRebuild()
    await next.applyChanges(
      {
        replace: [
          {
            record: {
              path: 'memory/a.md',
              source: 'memory',
              sha256: 'x',
              sizeBytes: 1,
              mtimeMs: 1,
              lineCount: 1,
              chunkCount: 1,
              indexedAtMs: 1,
              readSeq: 1,
            },
            chunks: [
              {
                startLine: 1,
                endLine: 1,
                text: 'half built',
                headings: '',
                contentHash: 'h',
                bodyTerms: 'half built',
                headingTerms: '',
                tokenCount: 2,
                datedMs: null,
                entry: null,
              },
            ],
          },
        ],
      },
      STEPS,
    )
    // The replica dies: its lease is never renewed again.
    await first.engine.close()
    await query(`UPDATE "${schema}".indexes SET lease_until = now() - interval '1 second' WHERE state = 'building'`)
    const second = await testPostgresEngine(null, schema)
    try {
      await waitFor(async () => {
        const left = await query<{ n: number }>(
          `SELECT COUNT(*)::int AS n FROM "${schema}".indexes WHERE state <> 'live'`,
        )
        const chunks = await query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM "${schema}".chunks`)
        return left[0]?.n === 0 && chunks[0]?.n === 0 ? true : undefined
      }, 10_000)
      const again = await second.engine.openSpace({ kind: 'agent', id: 'main' })
      expect(await again.getMeta('identity')).toBe('live')
      expect(await again.listFiles()).toEqual([])
    } finally {
      await second.engine.close()
    }
  })
})
