import { describe, expect, it } from 'vitest'
import { pino } from 'pino'
import { createPostgresEngine } from '../../src/store/postgres/engine.js'
import { databaseUrl, databaseVectors, dropSchema, freshSchema } from './pg-engine.js'
import { createReaderOps } from '../../src/search/index-reader.js'

// A server without pgvector (the CI's PostgreSQL 15): keyword search works, embeddings do not start.
describe.skipIf(databaseVectors())('PostgreSQL without pgvector', () => {
  it('serves keyword search, and says how to get vectors when an embedding provider asks for them', async () => {
    const schema = freshSchema()
    const engine = await createPostgresEngine({
      readOps: createReaderOps,
      url: databaseUrl(),
      schema,
      poolMax: 2,
      waitMs: 0,
      vectors: () => null,
      vectorsWanted: true,
      log: pino({ level: 'silent' }),
    })
    try {
      expect(() => engine.vectorLayout('auto')).toThrow(/pgvector extension is not installed/)
      expect(() => engine.vectorLayout('auto')).toThrow(/MNEMO_EMBED_PROVIDER=none/)
      const space = await engine.openSpace({ kind: 'agent', id: 'main' })
      expect(space.storesVectors()).toBe(false)
      expect(await space.listFiles()).toEqual([])
    } finally {
      await engine.close()
      await dropSchema(schema)
    }
  })
})
