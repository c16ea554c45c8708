import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTestApp, type TestApp } from '../helpers/build-test-app.js'
import { waitFor } from '../helpers/wait-for.js'
import type { IndexStatus } from '../helpers/api-types.js'

const TRANSCRIPT = [
  '{"type":"session","id":"s-1","started":"2026-02-16T09:00:00Z"}',
  '{"role":"user","content":"Can you book the dentist for next Tuesday?","ts":"2026-02-16T09:01:00Z"}',
  'this line is not json {',
  '{"role":"assistant","content":[{"type":"text","text":"Booked Dr. Alvarez, Tuesday 10:30."}]}',
  '{"type":"message","message":{"role":"user","content":"Also remind me to bring the x-ray."}}',
].join('\n')

async function start(opts: { watch?: boolean } = {}) {
  const t = await useTestApp({
    corpus: true,
    sync: false,
    start: opts.watch ?? false,
    env: { MNEMO_SESSIONS_DIR: 'sessions', MNEMO_WATCH: String(opts.watch ?? false), MNEMO_SYNC_DEBOUNCE_MS: '100' },
  })
  const dir = path.join(t.ws.base, 'sessions')
  return { t, dir, file: path.join(dir, '2026', 'main.jsonl') }
}

const status = async (t: TestApp) => (await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>()

describe('session transcripts', () => {
  it('are indexed as source "sessions" with JSONL line numbers, malformed lines counted', async () => {
    const { t, file } = await start()
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, `${TRANSCRIPT}\n`)
    await t.sync()
    const s = await status(t)
    expect(s.sources.sessions.files).toBe(1)
    expect(s.lastSync?.malformedLines).toBe(1)

    const res = await t.search({ query: 'Alvarez', sources: ['sessions'] })
    expect(res.body.results).toHaveLength(1)
    const hit = res.body.results[0]!
    expect(hit).toMatchObject({ path: 'sessions/2026/main.jsonl', source: 'sessions' })
    expect(hit.startLine).toBeLessThanOrEqual(4)
    expect(hit.endLine).toBeGreaterThanOrEqual(4)
    expect(hit.snippet).toContain('assistant: Booked Dr. Alvarez')
    expect((await t.search({ query: 'Alvarez', sources: ['memory'] })).body.results).toEqual([])

    const line = await t.app.inject({ method: 'GET', url: '/files/sessions/2026/main.jsonl?from=4&lines=1' })
    expect(line.statusCode).toBe(200)
    expect(line.json()).toMatchObject({ from: 4, to: 4, totalLines: 5, text: TRANSCRIPT.split('\n')[3] })
  })

  it('re-index a transcript when it grows, picked up by the watcher', async () => {
    const { t, file } = await start({ watch: true })
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, `${TRANSCRIPT}\n`)
    await waitFor(async () => ((await status(t)).sources.sessions.files === 1 ? true : undefined))
    fs.appendFileSync(file, '{"role":"user","content":"The parking garage code is 4471."}\n')
    const hit = await waitFor(
      async () => (await t.search({ query: 'parking garage code', sources: ['sessions'] })).body.results[0],
    )
    expect(hit).toMatchObject({ path: 'sessions/2026/main.jsonl', endLine: 6 })
  })

  it('never index a transcript reached through a symlink out of the sessions folder', async () => {
    const { t, dir } = await start()
    fs.mkdirSync(dir, { recursive: true })
    const outside = path.join(t.ws.base, 'elsewhere.jsonl')
    fs.writeFileSync(outside, '{"role":"user","content":"secret kumquat"}\n')
    fs.symlinkSync(outside, path.join(dir, 'link.jsonl'))
    await t.sync()
    expect((await status(t)).sources.sessions.files).toBe(0)
    expect((await t.search({ query: 'kumquat' })).body.results).toEqual([])
    const read = await t.app.inject({ method: 'GET', url: '/files/sessions/link.jsonl' })
    expect(read.statusCode).toBe(400)
    expect(read.json()).toMatchObject({ code: 'PATH_INVALID' })
  })
})
