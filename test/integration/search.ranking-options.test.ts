import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/build-test-app.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'

const NOW = Date.parse('2026-03-31T12:00:00Z')

/** Three notes about the staging Redis port, of three ages, and one about Postgres. */
async function start(env: Record<string, string> = {}) {
  const ws = createTempWorkspace()
  ws.write('MEMORY.md', '# Facts\n\nThe staging redis port is 6380 since the move.\n')
  ws.write('memory/2025-03-01.md', '# 2025-03-01\n\n- staging redis port moved to 6380, redis cache warm\n')
  ws.write('memory/2026-03-30.md', '# 2026-03-30\n\n- staging redis port is 6380, redis cache warm again\n')
  ws.write('memory/2026-03-29.md', '# 2026-03-29\n\n- staging postgres and redis share the port range\n')
  const t = await useTestApp({ ws, env, overrides: { now: () => NOW } })
  return t
}

const paths = (body: { results: { path: string }[] }) => body.results.map((r) => r.path)

describe('temporal decay (halfLifeDays)', () => {
  it('ranks an old day file below newer ones and lowers its score, but never decays MEMORY.md', async () => {
    const t = await start()
    const plain = await t.search({ query: 'staging redis port 6380', minScore: 0 })
    const decayed = await t.search({ query: 'staging redis port 6380', minScore: 0, halfLifeDays: 30 })
    expect(decayed.statusCode).toBe(200)
    const score = (body: typeof plain.body, p: string) => body.results.find((r) => r.path === p)?.score ?? NaN
    expect(score(decayed.body, 'memory/2025-03-01.md')).toBeLessThan(score(plain.body, 'memory/2025-03-01.md') / 1000)
    expect(score(decayed.body, 'MEMORY.md')).toBe(score(plain.body, 'MEMORY.md'))
    expect(score(decayed.body, 'memory/2026-03-30.md')).toBeCloseTo(
      score(plain.body, 'memory/2026-03-30.md') / 2 ** (1 / 30),
      5,
    )
    expect(paths(decayed.body).at(-1)).toBe('memory/2025-03-01.md')
    // Each result says what the decay multiplied its score by.
    const recency = (p: string) => decayed.body.results.find((r) => r.path === p)?.recency
    expect(recency('MEMORY.md')).toBe(1)
    expect(recency('memory/2026-03-30.md')).toBeCloseTo(2 ** (-1 / 30), 5)
    expect(plain.body.results.every((r) => r.recency === undefined)).toBe(true)
  })

  it('takes its default from MNEMO_SEARCH_HALF_LIFE_DAYS, and 0 in a request turns it off', async () => {
    const t = await start({ MNEMO_SEARCH_HALF_LIFE_DAYS: '30' })
    const byDefault = await t.search({ query: 'staging redis port 6380', minScore: 0 })
    expect(paths(byDefault.body).at(-1)).toBe('memory/2025-03-01.md')
    const off = await t.search({ query: 'staging redis port 6380', minScore: 0, halfLifeDays: 0 })
    expect(paths(off.body).at(-1)).not.toBe('memory/2025-03-01.md')
  })
})

describe('MMR diversity (mmr, mmrLambda)', () => {
  it('lifts the note unlike the ones above it when asked', async () => {
    const t = await start()
    const plain = await t.search({ query: 'staging redis port', minScore: 0, maxResults: 2 })
    expect(paths(plain.body)).not.toContain('memory/2026-03-29.md')
    const diverse = await t.search({
      query: 'staging redis port',
      minScore: 0,
      maxResults: 2,
      mmr: true,
      mmrLambda: 0.3,
    })
    expect(paths(diverse.body)).toContain('memory/2026-03-29.md')
    const lambdaOne = await t.search({
      query: 'staging redis port',
      minScore: 0,
      maxResults: 2,
      mmr: true,
      mmrLambda: 1,
    })
    expect(paths(lambdaOne.body)).toEqual(paths(plain.body))
  })

  it.each([{ halfLifeDays: -1 }, { mmrLambda: 1.5 }, { mmr: 'yes' }])(
    'refuses %j with 400 VALIDATION_FAILED',
    async (extra) => {
      const t = await start()
      const res = await t.search({ query: 'redis', ...extra })
      expect(res.statusCode).toBe(400)
      expect(res.body.code).toBe('VALIDATION_FAILED')
    },
  )
})
