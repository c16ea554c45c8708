import { afterEach, describe, expect, it } from 'vitest'
import type { FileRows, StepOptions } from '../../src/store/port.js'
import { indexTokens } from '../../src/text/analyzer.js'
import { dropSchema, freshSchema, testPostgresEngine } from './pg-engine.js'

const STEPS: StepOptions = { between: async () => undefined }
const schemas: string[] = []
afterEach(async () => {
  for (const s of schemas.splice(0)) await dropSchema(s)
})

function file(path: string, readSeq: number, text: string): FileRows {
  const terms = indexTokens(text)
  return {
    record: {
      path,
      source: 'memory',
      sha256: `sha-${readSeq}`,
      sizeBytes: text.length,
      mtimeMs: 1,
      lineCount: 1,
      chunkCount: 1,
      indexedAtMs: 1,
      readSeq,
    },
    chunks: [
      {
        startLine: 1,
        endLine: 1,
        text,
        headings: '',
        contentHash: `h-${readSeq}`,
        bodyTerms: terms.join(' '),
        headingTerms: '',
        tokenCount: terms.length,
        datedMs: null,
        entry: null,
      },
    ],
  }
}

describe('a rebuild on one replica', () => {
  it('carries a change another replica wrote meanwhile into the index it switches to', async () => {
    const schema = freshSchema()
    schemas.push(schema)
    const a = await testPostgresEngine(null, schema)
    const b = await testPostgresEngine(null, schema)
    try {
      const onA = await a.engine.openSpace({ kind: 'agent', id: 'main' })
      const onB = await b.engine.openSpace({ kind: 'agent', id: 'main' })
      await onA.applyChanges({ replace: [file('memory/old.md', 1, 'lighthouse keeper')] }, STEPS)
      const next = await onA.beginRebuild()
      await next.applyChanges({ replace: [file('memory/old.md', 2, 'lighthouse keeper')] }, STEPS)
      // Replica B knows nothing of A's rebuild; its change must not be lost by the switch.
      await onB.applyChanges({ replace: [file('memory/during.md', 3, 'harbourmaster ferry')] }, STEPS)
      await next.commit({
        signal: new AbortController().signal,
        readers: { suspend: async () => undefined, resume: () => undefined },
        detach: () => undefined,
        writes: { idle: () => true, whenIdle: async () => undefined },
      })
      for (const store of [onA, onB]) {
        const rows = await store.candidates({ terms: indexTokens('harbourmaster'), limit: 5, headingWeight: 2 })
        expect(rows.map((r) => r.path)).toEqual(['memory/during.md'])
        expect((await store.listFiles()).map((f) => f.path)).toEqual(['memory/during.md', 'memory/old.md'])
      }
    } finally {
      await a.engine.close()
      await b.engine.close()
    }
  })
})
