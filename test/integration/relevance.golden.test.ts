import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'

type Golden = { query: string; expectedPath: string; kind: string }
const golden = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/golden-queries.json'), 'utf8'),
) as Golden[]

describe('golden queries over the fixture corpus', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp({ corpus: true })
  })
  afterAll(() => t.close())

  it('puts the expected file first for at least 90% of queries and in the top 3 for all', async () => {
    let first = 0
    const misses: string[] = []
    for (const g of golden) {
      const res = await t.search({ query: g.query, maxResults: 3 })
      const paths = res.body.results.map((r) => r.path)
      if (paths[0] === g.expectedPath) first++
      if (!paths.includes(g.expectedPath)) misses.push(`${g.query} → ${paths.join(', ')}`)
    }
    expect(misses).toEqual([])
    expect(first / golden.length).toBeGreaterThanOrEqual(0.9)
  })
})
