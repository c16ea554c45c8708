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

/** Questions the fixture corpus knows nothing about (no chunk is about them). */
const OFF_TOPIC = [
  'What painting did Caroline finish last week?',
  'vitamin D deficiency increases the risk of falls in the elderly',
  'how long should sourdough bread proof',
  '量子计算机的纠错码是怎么工作的',
  'Which city did Jean and John both visit?',
]

describe('abstention at the default request settings', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp({ corpus: true })
  })
  afterAll(() => t.close())

  it('answers every golden query with its file', async () => {
    const misses: string[] = []
    for (const g of golden) {
      const res = await t.search({ query: g.query })
      if (!res.body.results.some((r) => r.path === g.expectedPath)) misses.push(g.query)
    }
    expect(misses).toEqual([])
  })

  it.each(OFF_TOPIC)('answers nothing to "%s"', async (query) => {
    const res = await t.search({ query })
    expect(res.statusCode).toBe(200)
    expect(res.body.results).toEqual([])
    // Not an empty index or a failed search: the same query with minScore 0 finds chunks,
    // or none of its words are in the corpus at all.
    const any = await t.search({ query, minScore: 0 })
    for (const hit of any.body.results) expect(hit.score).toBeLessThan(0.35)
  })
})
