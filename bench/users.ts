/**
 * What users inside an agent cost a search (issue 32): one service with two agents that
 * share the same synthetic memory — `plain`, without users, and `crowd`, with `--users`
 * users of about `--user-chunks` chunks each under users/<id>/ — searched in turns so a
 * noisy machine weighs on both alike. Keyword and hybrid (`hash` vectors) /search latency
 * with one client: plain searched without a user, crowd with a user among the first
 * HOT_USERS (their indexes stay open, as those of the people an agent talks to now do).
 * Target: the search with a user within 10 % of the search without users. Then a search
 * for a user picked at random among all of them (most of whose indexes are closed: the
 * registry keeps MNEMO_MAX_OPEN_AGENTS open), p50 and p99, for what a cold user costs.
 */
import fs from 'node:fs'
import path from 'node:path'
import { createRandom, makeQueries, writeCorpus } from './corpus.js'
import type { BenchEngine } from './engines.js'
import { createClient } from './http-client.js'
import { startServer } from './server-process.js'
import { median, percentile } from './stats.js'

export type UsersBenchOptions = {
  tmp: string
  engine: BenchEngine
  runs: number
  /** The agents' shared memory: day files and notes per file. */
  files: number
  notesPerFile: number
  users: number
  /** Notes per user (each about one chunk). */
  userNotes: number
  latencyRequests: number
}

/** Users searched in the hot measurement: well under MNEMO_MAX_OPEN_AGENTS (64), so none closes. */
const HOT_USERS = 16
/** Users indexed at once while the bench sets up. */
const INDEX_AT_ONCE = 4

const userId = (i: number) => `u${String(i).padStart(4, '0')}`

export async function benchUsers(opts: UsersBenchOptions) {
  const agentsDir = path.join(opts.tmp, 'agents')
  for (const agent of ['plain', 'crowd']) writeCorpus(path.join(agentsDir, agent), opts.files, opts.notesPerFile)
  for (let i = 0; i < opts.users; i++) {
    // Each user's own notes: another seed per user, so no two users hold the same text.
    writeCorpus(path.join(agentsDir, 'crowd', 'users', userId(i)), 1, opts.userNotes, 1000 + i)
  }
  const dataDir = path.join(opts.tmp, 'data')
  const server = await startServer({
    MNEMO_WORKSPACE: path.join(opts.tmp, 'workspace'),
    MNEMO_AGENTS_DIR: agentsDir,
    MNEMO_MAX_USERS_PER_AGENT: String(opts.users),
    ...opts.engine.env(dataDir),
    MNEMO_EMBED_PROVIDER: 'hash',
  })
  const client = createClient(server.baseUrl)
  const as = (agent: string, user?: string) => ({ 'x-mnemo-agent': agent, ...(user && { 'x-mnemo-user': user }) })
  try {
    const setupStarted = performance.now()
    for (const agent of ['plain', 'crowd']) {
      const res = await client.request('POST', '/index?wait=true', {}, as(agent))
      if (res.status !== 200) throw new Error(`index failed: ${res.body}`)
    }
    const indexers = Array.from({ length: INDEX_AT_ONCE }, () => createClient(server.baseUrl))
    let next = 0
    await Promise.all(
      indexers.map(async (c) => {
        for (let i = next++; i < opts.users; i = next++) {
          const res = await c.request('POST', '/index?wait=true', {}, as('crowd', userId(i)))
          if (res.status !== 200) throw new Error(`index of ${userId(i)} failed: ${res.body}`)
        }
        c.close()
      }),
    )
    const setupS = (performance.now() - setupStarted) / 1000
    const listed = await client.request('GET', '/users', undefined, as('crowd'))
    const users = (JSON.parse(listed.body) as { users: { chunks: number }[] }).users
    const chunksPerUser = median(users.map((u) => u.chunks))

    const queries = makeQueries(500)
    const r = createRandom(7)
    const p50 = {
      keyword: { plain: [] as number[], user: [] as number[] },
      hybrid: { plain: [] as number[], user: [] as number[] },
    }
    const measure = async (mode: string, headersOf: (i: number) => Record<string, string>) => {
      const samples: number[] = []
      for (let i = 0; i < opts.latencyRequests; i++) {
        const res = await client.request('POST', '/search', { query: queries[i % queries.length], mode }, headersOf(i))
        if (res.status !== 200) throw new Error(`search failed: ${res.body}`)
        samples.push(res.ms)
      }
      return samples
    }
    // Warm both sides (and the hot users' indexes) before measuring.
    for (let i = 0; i < 200; i++) {
      await client.request('POST', '/search', { query: queries[i % queries.length] }, as('plain'))
      await client.request(
        'POST',
        '/search',
        { query: queries[i % queries.length] },
        as('crowd', userId(i % HOT_USERS)),
      )
    }
    for (let run = 0; run < opts.runs; run++) {
      const sides = [
        ['plain', () => as('plain')],
        ['user', (i: number) => as('crowd', userId(i % HOT_USERS))],
      ] as const
      for (const [side, headersOf] of run % 2 === 0 ? sides : [...sides].reverse()) {
        for (const mode of ['keyword', 'hybrid'] as const) {
          p50[mode][side].push(percentile(await measure(mode, headersOf), 50))
        }
      }
    }
    // Users picked at random among all: most of them are closed and open on their search.
    const cold = await measure('keyword', () => as('crowd', userId(r.int(opts.users))))
    const ratio = (mode: 'keyword' | 'hybrid') => median(p50[mode].user) / median(p50[mode].plain)
    return {
      users: users.length,
      chunksPerUser,
      setupS,
      keyword: { plainMs: median(p50.keyword.plain), userMs: median(p50.keyword.user), ratio: ratio('keyword') },
      hybrid: { plainMs: median(p50.hybrid.plain), userMs: median(p50.hybrid.user), ratio: ratio('hybrid') },
      randomUser: { p50Ms: percentile(cold, 50), p99Ms: percentile(cold, 99) },
      runs: p50,
    }
  } finally {
    client.close()
    await server.stop()
    await opts.engine.drop(dataDir)
    fs.rmSync(agentsDir, { recursive: true, force: true })
  }
}
