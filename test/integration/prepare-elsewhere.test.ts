/**
 * Files read and prepared on the search workers (read-there.ts: files with no checkpoint, up
 * to 1 MiB of text) must index exactly as the main thread reads and prepares them: an app with the pool and
 * one without (MNEMO_SEARCH_WORKERS=0) over the same files answer alike, at the size
 * boundaries, for text of every kind (a BOM, CRLF, one huge line, transcripts, notes dated
 * by their modification time), and after the files grow, change in the middle or go.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import { buildTestApp, useTestApp, type TestApp } from '../helpers/build-test-app.js'
import { createTempWorkspace, type TempWorkspace } from '../helpers/temp-workspace.js'
import { waitFor } from '../helpers/wait-for.js'

/** Hash embeddings: hybrid searches compare the vectors of the chunks too. */
const ENV = { MNEMO_EXTRA_PATHS: 'notes', MNEMO_SESSIONS_DIR: 'sessions', MNEMO_EMBED_PROVIDER: 'hash' }
const QUERIES = ['zebra', 'quokka 部署', 'walrus canary', 'transcript deploy', 'kubectl', 'bom']
const KIB = 1024
const MIB = 1024 * KIB

/** Text of exactly `chars` characters: lines of varied words, with `tag` in some of them. */
function textOf(chars: number, tag: string, eol = '\n'): string {
  const lines: string[] = []
  let length = 0
  for (let i = 0; length < chars; i++) {
    const line =
      i % 40 === 0
        ? `## 10:${String(i % 60).padStart(2, '0')} ${tag} heading ${i}`
        : `- ${tag} ${['zebra', 'quokka 部署', 'walrus canary', 'kubectl rollout'][i % 4]} note ${i}`
    lines.push(line)
    length += line.length + eol.length
  }
  return lines.join(eol).padEnd(chars, 'x').slice(0, chars)
}

/** A transcript of `messages` JSONL lines. */
const transcript = (messages: number, from = 0) =>
  Array.from({ length: messages }, (_, n) =>
    JSON.stringify({ role: n % 2 ? 'assistant' : 'user', content: `transcript deploy zebra step ${from + n}` }),
  ).join('\n') + '\n'

/** Everything the index answers about the files: the listing and every search. */
async function answers(t: TestApp): Promise<Record<string, unknown>> {
  const list = (await t.app.inject({ method: 'GET', url: '/files' })).json<{ files: Record<string, unknown>[] }>()
  const out: Record<string, unknown> = {
    files: list.files.map(({ path: p, chunks, lines, sha256, sizeBytes, source }) => ({
      p,
      chunks,
      lines,
      sha256,
      sizeBytes,
      source,
    })),
  }
  const ranges = [
    {},
    { after: '2026-03-01', before: '2026-03-03', datedOnly: true },
    { after: '2026-02-01', before: '2026-02-20', datedOnly: true },
  ]
  for (const query of QUERIES) {
    for (const range of ranges) {
      // Above 0: a vector search finds every chunk, and those scoring 0 tie at the cut.
      const res = await t.search({ query, maxResults: 100, minScore: 0.01, mode: 'hybrid', ...range })
      expect(res.statusCode, JSON.stringify(res.body)).toBe(200)
      // Equal scores may come in either order.
      out[`${query} ${JSON.stringify(range)}`] = res.body.results
        .map((r) => `${r.path}:${r.startLine}-${r.endLine} ${r.score.toFixed(6)} ${JSON.stringify(r.snippet)}`)
        .sort()
    }
  }
  return out
}

/** Writes `rel` (under the workspace, or the sessions folder beside it) dated `mtime`. */
function put(ws: TempWorkspace, rel: string, text: string, mtime: Date): void {
  const abs = rel.startsWith('sessions/') ? path.join(ws.base, rel) : ws.abs(rel)
  fs.mkdirSync(path.dirname(abs), { recursive: true })
  fs.writeFileSync(abs, text)
  fs.utimesSync(abs, mtime, mtime)
}

describe('files prepared on the search workers', () => {
  it('index as the main thread prepares them, first and after appends, edits and deletions', async () => {
    const pooled = await useTestApp({ env: { ...ENV, MNEMO_SEARCH_WORKERS: '2' }, sync: false })
    const here = await useTestApp({ env: { ...ENV, MNEMO_SEARCH_WORKERS: '0' }, sync: false })
    const feb = new Date(2026, 1, 10, 9, 30)
    const mar = new Date(2026, 2, 2, 11, 0)
    const files: Record<string, string> = {
      // Small and 4 KiB texts, and around the largest text prepared there (1 MiB).
      'memory/2026-03-01.md': textOf(4 * KIB, 'at'),
      'memory/2026-03-02.md': textOf(4 * KIB - 1, 'under'),
      'notes/at-1mib.md': textOf(MIB, 'top'),
      'notes/over-1mib.md': textOf(MIB + 1, 'over'),
      'notes/bom-crlf.md': `\uFEFF# bom heading\r\n${textOf(6 * KIB, 'bom', '\r\n')}\r\n`,
      'notes/one-line.md': `${Array.from({ length: 15_000 }, (_, i) => `walrus canary zebra ${i}`).join(' ')}\n`,
      'memory/projects/plan.md': textOf(9 * KIB, 'plan'),
      'sessions/s1.jsonl': transcript(200),
    }
    for (const t of [pooled, here]) {
      for (const [rel, text] of Object.entries(files)) put(t.ws, rel, text, rel.startsWith('notes/') ? feb : mar)
      await t.sync()
    }
    const first = await answers(pooled)
    expect(first['files']).toHaveLength(Object.keys(files).length)
    expect(Object.values(first).filter((found) => (found as unknown[]).length > 0).length).toBeGreaterThan(12)
    expect(first).toEqual(await answers(here))

    for (const t of [pooled, here]) {
      // Grown at its end (resumed from what the worker made), with a new mtime.
      put(t.ws, 'notes/bom-crlf.md', `${files['notes/bom-crlf.md']}- bom zebra appended\r\n`, mar)
      put(t.ws, 'sessions/s1.jsonl', files['sessions/s1.jsonl'] + transcript(3, 900), mar)
      // Changed in the middle; gone.
      const plan = files['memory/projects/plan.md'] as string
      put(t.ws, 'memory/projects/plan.md', plan.replace('plan zebra', 'plan walrus edited'), feb)
      t.ws.remove('memory/2026-03-02.md')
      await t.sync()
    }
    expect(await answers(pooled)).toEqual(await answers(here))
  })

  it('count, refuse and skip files read on the workers as the main thread does, and prepare none whose content is the same', async () => {
    const env = { ...ENV, MNEMO_MAX_FILE_BYTES: String(64 * KIB) }
    const mar = new Date(2026, 2, 2, 11, 0)
    const apr = new Date(2026, 3, 1, 9, 0)
    /** What a sync said of the files it read (not its duration). */
    const synced = async (t: TestApp) => {
      const res = await t.app.inject({ method: 'POST', url: '/index?wait=true', payload: {} })
      expect(res.statusCode, res.body).toBe(200)
      const last = res.json<{ lastSync: Record<string, unknown> }>().lastSync
      const { indexed, unchanged, skipped, malformedLines, chunks, fileErrors } = last
      return { indexed, unchanged, skipped, malformedLines, chunks, fileErrors }
    }
    const outcomes: Record<string, unknown>[] = []
    for (const workers of ['2', '0']) {
      const ws = createTempWorkspace()
      put(ws, 'memory/2026-03-01.md', textOf(6 * KIB, 'kept'), mar)
      put(ws, 'memory/2026-03-02.md', textOf(5 * KIB, 'touched'), mar)
      put(ws, 'notes/too-big.md', textOf(64 * KIB + 1, 'big'), mar)
      put(ws, 'sessions/s2.jsonl', `${transcript(20)}not json\n{"role": "user", "content": "bom zebra"}\n`, mar)
      fs.writeFileSync(path.join(ws.base, 'secret.md'), 'walrus canary secret')
      fs.symlinkSync(path.join(ws.base, 'secret.md'), ws.abs('memory/link.md'))
      const first = await buildTestApp({ ws, env: { ...env, MNEMO_SEARCH_WORKERS: workers }, sync: false })
      const firstSync = await synced(first)
      await first.app.close()
      // Its stat changed, its content did not: read again by a new process (which has no
      // checkpoint of it, so on a worker when there are some), not prepared nor written.
      fs.utimesSync(ws.abs('memory/2026-03-02.md'), apr, apr)
      const again = await useTestApp({ ws, env: { ...env, MNEMO_SEARCH_WORKERS: workers }, sync: false })
      outcomes.push({ first: firstSync, second: await synced(again), answers: await answers(again) })
    }
    const [there, local] = outcomes as [Record<string, { indexed: number; unchanged: number }>, unknown]
    expect(there).toEqual(local)
    expect(there['first']).toMatchObject({ indexed: 3, skipped: 1, malformedLines: 1 })
    // The others are unchanged by their stat, not read.
    expect(there['second']).toMatchObject({ indexed: 0, unchanged: 3 })
    expect(JSON.stringify(there['answers'])).not.toContain('secret')
    expect(JSON.stringify(there['answers'])).toContain('2026-03-02.md')
  })

  it("index several agents' first syncs at once, and a rebuild during one, as the main thread does", async () => {
    const agents = ['ada', 'bo', 'cy']
    const apps = {
      pooled: await useAgentsApp({ env: { MNEMO_SEARCH_WORKERS: '2' } }),
      here: await useAgentsApp({ env: { MNEMO_SEARCH_WORKERS: '0' } }),
    }
    for (const t of Object.values(apps)) {
      for (const [a, agent] of agents.entries()) {
        for (let d = 1; d <= 12; d++) {
          t.writeAgentFile(
            agent,
            `memory/2026-03-${String(d).padStart(2, '0')}.md`,
            textOf((4 + a * 3 + d) * KIB, agent),
          )
        }
      }
    }
    const answersOf = async (t: AgentsApp, agent: string) => {
      const list = await t.call('GET', '/files', { agent })
      expect(list.statusCode, list.body).toBe(200)
      const out: Record<string, unknown> = {
        files: list.json<{ files: { path: string; chunks: number; lines: number }[] }>().files.map((f) => ({
          path: f.path,
          chunks: f.chunks,
          lines: f.lines,
        })),
      }
      for (const query of QUERIES) {
        const res = await t.call('POST', '/search', { agent, payload: { query, maxResults: 100, minScore: 0 } })
        expect(res.statusCode, res.body).toBe(200)
        out[query] = res
          .json<{ results: { path: string; startLine: number; endLine: number; score: number }[] }>()
          .results.map((r) => `${r.path}:${r.startLine}-${r.endLine} ${r.score.toFixed(6)}`)
          .sort()
      }
      return out
    }
    const syncs = (t: AgentsApp) => [
      ...agents.map((agent) => t.call('POST', '/index?wait=true', { agent, payload: {} })),
      // A full rebuild of one agent while the first syncs run (refused while one runs: fine).
      t.call('POST', '/index?wait=true', { agent: 'bo', payload: { full: true } }),
    ]
    const [pooled, here] = await Promise.all([Promise.all(syncs(apps.pooled)), Promise.all(syncs(apps.here))])
    for (const res of [...pooled, ...here]) {
      if (res.statusCode !== 200) expect(res.json(), res.body).toMatchObject({ code: 'INDEX_BUSY' })
    }
    for (const agent of agents) {
      const a = await answersOf(apps.pooled, agent)
      expect((a['files'] as unknown[]).length).toBe(12)
      expect(a, agent).toEqual(await answersOf(apps.here, agent))
    }
  })

  it('shut down cleanly during a first sync with files prepared ahead, and all are indexed after a restart', async () => {
    const ws = createTempWorkspace()
    const mar = new Date(2026, 2, 2, 11, 0)
    const days = 40
    for (let d = 1; d <= days; d++) put(ws, `memory/log-${d}.md`, textOf(20 * KIB, `day${d}`), mar)
    const first = await buildTestApp({ ws, env: ENV, sync: false })
    const listed = async (t: TestApp) =>
      (await t.app.inject({ method: 'GET', url: '/files' })).json<{ files: { path: string; chunks: number }[] }>().files
    const sync = first.app.inject({ method: 'POST', url: '/index?wait=true', payload: {} })
    // Closed once some files are written and the others are still being prepared.
    await waitFor(async () => ((await listed(first)).length > 0 ? true : undefined), 10_000, 5)
    await first.app.close()
    // Answered (the pass was cancelled), not left hanging.
    expect((await sync).statusCode).toBeGreaterThanOrEqual(200)

    const again = await useTestApp({ ws, env: ENV })
    const here = await useTestApp({ env: { ...ENV, MNEMO_SEARCH_WORKERS: '0' }, sync: false })
    fs.cpSync(ws.root, here.ws.root, { recursive: true, preserveTimestamps: true })
    await here.sync()
    // The same files, chunks and lines as a fresh index of them. (Not the searches: chunk ids
    // follow the order files were written in, and this text ties at the cut of 100 results.)
    const files = await listed(again)
    expect(files).toHaveLength(days)
    expect(files).toEqual(await listed(here))
  })
})
