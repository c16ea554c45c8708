import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { useTestApp, type TestApp } from '../helpers/build-test-app.js'
import { createTempWorkspace, type TempWorkspace } from '../helpers/temp-workspace.js'
import { onPostgres } from '../helpers/test-database.js'
import type { ErrorBody, FlushResult } from '../helpers/api-types.js'
import { makeTar } from '../helpers/tar-archive.js'

/** A flush answer, or an error's code and details. */
type FlushBody = FlushResult & Partial<Pick<ErrorBody, 'code' | 'details'>>

/** 2026-02-16 23:59:58 in the local time zone (the day file follows the server's zone). */
const LATE_EVENING = new Date(2026, 1, 16, 23, 59, 58).getTime()

async function start(
  opts: { ws?: TempWorkspace; now?: () => number; env?: Record<string, string>; logs?: string[] } = {},
) {
  const t = await useTestApp({
    ws: opts.ws ?? createTempWorkspace({ corpus: true }),
    env: opts.env ?? {},
    overrides: { now: opts.now ?? (() => LATE_EVENING) },
    ...(opts.logs && { logs: opts.logs }),
  })
  return t
}

async function flush(t: TestApp, body?: object) {
  const res = await t.app.inject({ method: 'POST', url: '/flush', ...(body === undefined ? {} : { payload: body }) })
  return { status: res.statusCode, body: res.json<FlushBody>() }
}

const window = async (t: TestApp, rel: string, from: number, to: number) =>
  (await t.app.inject({ method: 'GET', url: `/files/${rel}?from=${from}&lines=${to - from + 1}` })).json<{
    text: string
  }>().text

describe('POST /flush', () => {
  it('appends the notes under a heading to the day file and answers their lines, indexed', async () => {
    const t = await start()
    const res = await flush(t, {
      content: '- The user adopted a ferret named Biscuit.',
      agentId: 'main',
      sessionId: 's-42',
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ indexed: true, path: 'memory/2026-02-16.md', replayed: false })
    // A flush with a session has a marker of its own (an id of the service's), so forgetting
    // the session removes exactly its lines.
    const text = await window(t, 'memory/2026-02-16.md', res.body.startLine!, res.body.endLine!)
    expect(text).toMatch(
      /^## 23:59:58 · agent main · session s-42\n<!-- mnemo:flush id=auto\.[0-9a-f-]{36} lines=1 -->\n- The user adopted a ferret named Biscuit\.$/,
    )
    // The corpus day file ended with a newline: a blank line separates the new entry.
    const all = t.ws.read('memory/2026-02-16.md')
    expect(all.endsWith(`\n\n${text}\n`)).toBe(true)
    const found = (await t.search({ query: 'ferret Biscuit' })).body.results[0]
    expect(found).toMatchObject({ path: 'memory/2026-02-16.md' })
    expect(found!.startLine).toBeLessThanOrEqual(res.body.endLine!)
  })

  it('writes entries as lines, and a given date to that day file', async () => {
    const t = await start()
    const res = await flush(t, { entries: ['- one', '- two\n  continued'], date: '2026-03-01' })
    expect(res.body).toMatchObject({ path: 'memory/2026-03-01.md', startLine: 1, endLine: 4 })
    expect(t.ws.read('memory/2026-03-01.md')).toBe('## 23:59:58\n- one\n- two\n  continued\n')
  })

  it('appends a retried flushId once, also after a restart and across midnight', async () => {
    const ws = createTempWorkspace()
    let clock = LATE_EVENING
    const t = await start({ ws, now: () => clock })
    const body = { content: '- Deploy window moved to Thursday.', flushId: 'agent-7:compaction-3' }
    const first = await flush(t, body)
    expect(first.body).toMatchObject({ replayed: false, path: 'memory/2026-02-16.md' })
    const retry = await flush(t, body)
    expect(retry.body).toEqual({ ...first.body, replayed: true })
    await t.app.close()

    clock = LATE_EVENING + 5000 // 00:00:03 the next day
    const again = await start({ ws, now: () => clock })
    const afterRestart = await flush(again, body)
    expect(afterRestart.body).toEqual({ ...first.body, replayed: true })
    expect(fs.existsSync(ws.abs('memory/2026-02-17.md'))).toBe(false)
    const occurrences = ws.read('memory/2026-02-16.md').split('Deploy window moved').length - 1
    expect(occurrences).toBe(1)
    const marker = await window(again, 'memory/2026-02-16.md', first.body.startLine! + 1, first.body.startLine! + 1)
    expect(marker).toBe('<!-- mnemo:flush id=agent-7:compaction-3 lines=1 -->')
    // Another id on the new day goes to the new day file.
    const next = await flush(again, { content: '- New day.', flushId: 'agent-7:compaction-4' })
    expect(next.body).toMatchObject({ path: 'memory/2026-02-17.md', startLine: 1, endLine: 3, replayed: false })
    expect(ws.read('memory/2026-02-17.md')).toBe(
      '## 00:00:03\n<!-- mnemo:flush id=agent-7:compaction-4 lines=1 -->\n- New day.\n',
    )
  })

  it('answers a flushId an imported backup planted with other notes 409 FLUSH_ID_CONFLICT, never a silent replay', async () => {
    const t = await start({ ws: createTempWorkspace() })
    // A tampered backup: a day file whose marker claims the id a later flush will use.
    const planted = '## 10:00:00\n<!-- mnemo:flush id=victim-1 lines=1 -->\n- planted by the backup\n'
    const archive = await makeTar([{ name: 'main/memory/2026-02-16.md', body: planted }])
    const imported = await t.app.inject({
      method: 'POST',
      url: '/import',
      headers: { 'content-type': 'application/x-tar' },
      payload: archive,
    })
    expect(imported.json()).toMatchObject({ written: 1 })
    const res = await flush(t, { content: '- The real note.', flushId: 'victim-1' })
    expect(res.status).toBe(409)
    expect(res.body).toMatchObject({
      code: 'FLUSH_ID_CONFLICT',
      details: { flushId: 'victim-1', path: 'memory/2026-02-16.md', startLine: 1, endLine: 3 },
    })
    expect(t.ws.read('memory/2026-02-16.md')).toBe(planted)
    // The notes under the marker are what this flush writes: that is a replay.
    const same = await flush(t, { content: '- planted by the backup', flushId: 'victim-1' })
    expect(same).toEqual({
      status: 200,
      body: { indexed: true, path: 'memory/2026-02-16.md', startLine: 1, endLine: 3, replayed: true },
    })
    expect(t.ws.read('memory/2026-02-16.md')).toBe(planted)
  })

  it('reads a day file again when an import replaced it with another of the same size and modification time', async () => {
    const t = await start({ ws: createTempWorkspace() })
    // Two backups of one day file: same length, same mtime (whole seconds), other notes.
    const dayOf = (note: string) => `## 10:00:00\n<!-- mnemo:flush id=h-1 lines=1 -->\n- ${note}\n`
    const restore = async (note: string) => {
      const archive = await makeTar([
        { name: 'main/memory/2026-02-16.md', body: dayOf(note), mtime: new Date(1_795_800_000_000) },
      ])
      const res = await t.app.inject({
        method: 'POST',
        url: '/import',
        headers: { 'content-type': 'application/x-tar' },
        payload: archive,
      })
      expect(res.json()).toMatchObject({ written: 1 })
    }
    await restore('AAAA')
    // Read once: what the flush knows of the file is kept while the file is unchanged.
    expect((await flush(t, { content: '- AAAA', flushId: 'h-1' })).body).toMatchObject({ replayed: true })
    await restore('BBBB')
    const stat = fs.statSync(t.ws.abs('memory/2026-02-16.md'))
    expect([stat.size, stat.mtimeMs]).toEqual([dayOf('AAAA').length, 1_795_800_000_000])
    // The notes AAAA are no longer on disk: a replay would acknowledge notes that are not there.
    expect((await flush(t, { content: '- AAAA', flushId: 'h-1' })).body).toMatchObject({ code: 'FLUSH_ID_CONFLICT' })
    expect((await flush(t, { content: '- BBBB', flushId: 'h-1' })).body).toMatchObject({ replayed: true })
    expect(t.ws.read('memory/2026-02-16.md')).toBe(dayOf('BBBB'))
  })

  it('compares a marker written on disk by the notes under it and the session its heading names', async () => {
    const ws = createTempWorkspace()
    // Yesterday's file, looked in for a retry across midnight; written by hand, CRLF and all.
    const byHand = '## 23:59:01 · session s-1\r\n<!-- mnemo:flush id=s-1:9 lines=2 -->\r\n- one\r\n- two\r\n'
    ws.write('memory/2026-02-15.md', byHand)
    const t = await start({ ws })
    const otherSession = await flush(t, { entries: ['- one', '- two'], sessionId: 's-2', flushId: 's-1:9' })
    expect(otherSession).toMatchObject({ status: 409, body: { code: 'FLUSH_ID_CONFLICT' } })
    const otherNotes = await flush(t, { entries: ['- one', '- three'], sessionId: 's-1', flushId: 's-1:9' })
    expect(otherNotes).toMatchObject({ status: 409, body: { code: 'FLUSH_ID_CONFLICT' } })
    for (const body of [
      { entries: ['- one', '- two'], sessionId: 's-1', flushId: 's-1:9' },
      // A request that names no session is not compared on it.
      { content: '- one\n- two\n', flushId: 's-1:9' },
    ]) {
      expect((await flush(t, body)).body).toMatchObject({ path: 'memory/2026-02-15.md', startLine: 1, replayed: true })
    }
    expect(ws.read('memory/2026-02-15.md')).toBe(byHand)
    expect(fs.existsSync(ws.abs('memory/2026-02-16.md'))).toBe(false)
  })

  it('answers a flushId reused for other notes 409, after its flush and alongside it', async () => {
    const t = await start({ ws: createTempWorkspace() })
    const first = await flush(t, { content: '- Ship on Friday.', flushId: 'turn-1' })
    expect(first.body).toMatchObject({ replayed: false, startLine: 1, endLine: 3 })
    const before = t.ws.read('memory/2026-02-16.md')
    const reused = await flush(t, { content: '- Ship on Monday.', flushId: 'turn-1' })
    expect(reused).toMatchObject({ status: 409, body: { code: 'FLUSH_ID_CONFLICT', details: { startLine: 1 } } })
    expect(t.ws.read('memory/2026-02-16.md')).toBe(before)
    // Two at once with one id: one lands, the other is refused, whichever order they take.
    const both = await Promise.all([
      flush(t, { content: '- Blue.', flushId: 'turn-2' }),
      flush(t, { content: '- Green.', flushId: 'turn-2' }),
    ])
    expect(both.map((r) => r.status).sort()).toEqual([200, 409])
    expect(t.ws.read('memory/2026-02-16.md').match(/id=turn-2/g)).toHaveLength(1)
  })

  it('keeps flush markers out of the index and the snippets, with the lines of the file', async () => {
    const t = await start({ ws: createTempWorkspace() })
    const first = await flush(t, { content: '- The staging cluster moved to Frankfurt.', flushId: 'zebracorn-77' })
    await flush(t, { content: '- Backups run at 02:00.', flushId: 'zebracorn-78' })
    // Only the marker holds this id: nothing is found by it.
    const byId = await t.search({ query: 'zebracorn', minScore: 0 })
    expect(byId.body.results).toEqual([])
    const byNote = await t.search({ query: 'staging cluster Frankfurt' })
    const hit = byNote.body.results[0]!
    expect(hit.path).toBe('memory/2026-02-16.md')
    expect(hit.snippet).toContain('The staging cluster moved to Frankfurt.')
    expect(hit.snippet).not.toContain('mnemo:flush')
    // The chunk's lines are the file's: the marker line is still there, only not indexed.
    expect(hit.startLine).toBe(first.body.startLine)
    const lines = await window(t, 'memory/2026-02-16.md', hit.startLine, hit.endLine)
    expect(lines).toContain('<!-- mnemo:flush id=zebracorn-77 lines=1 -->')
  })

  // 200 rounds on SQLite; 50 on PostgreSQL, where each flush's reindex costs about 5× more on
  // PGlite (52 s for 200 rounds). The 8 concurrent writers and the retries are the same, and
  // keeping entries whole is the file writer's work, the same on both engines.
  const rounds = onPostgres() ? 50 : 200
  it(`lands 8 agents × ${rounds} concurrent flushes to one day file whole, none interleaved, none twice on retry`, async () => {
    // The service's log, so a failed flush says why (its answer says only INTERNAL).
    const logs: string[] = []
    const t = await start({ ws: createTempWorkspace(), logs })
    const errors = () => logs.filter((line) => /"level":(50|60)/.test(line)).join('\n')
    const agent = async (a: number) => {
      for (let i = 0; i < rounds; i++) {
        const body = {
          entries: [`- agent ${a} note ${i} begins`, `- agent ${a} note ${i} ends`],
          sessionId: `session-${a}`,
          flushId: `a${a}-n${i}`,
        }
        const res = await flush(t, body)
        if (res.status !== 200 || res.body.replayed) {
          throw new Error(`flush ${a}/${i}: ${JSON.stringify(res)}\n${errors()}`)
        }
        // Every tenth flush is retried, as a client that timed out would.
        if (i % 10 === 0) {
          const retry = await flush(t, body)
          if (!retry.body.replayed || retry.body.startLine !== res.body.startLine) {
            throw new Error(`retry ${a}/${i}: ${JSON.stringify(retry.body)}`)
          }
        }
      }
    }
    await Promise.all(Array.from({ length: 8 }, (_, a) => agent(a)))
    const lines = t.ws.read('memory/2026-02-16.md').split('\n')
    const seen = new Map<string, number>()
    for (let i = 0; i < lines.length; i++) {
      const m = /^- agent (\d+) note (\d+) begins$/.exec(lines[i]!)
      if (!m) continue
      const key = `${m[1]}/${m[2]}`
      seen.set(key, (seen.get(key) ?? 0) + 1)
      // Heading and marker above, the note's second line right below: nothing in between.
      expect(lines[i - 2]).toBe(`## 23:59:58 · session session-${m[1]}`)
      expect(lines[i - 1]).toBe(`<!-- mnemo:flush id=a${m[1]}-n${m[2]} lines=2 -->`)
      expect(lines[i + 1]).toBe(`- agent ${m[1]} note ${m[2]} ends`)
    }
    expect(seen.size).toBe(8 * rounds)
    expect([...seen.values()].every((n) => n === 1)).toBe(true)
    const found = (await t.search({ query: `agent 5 note ${rounds - 1} ends`, maxResults: 3 })).body.results
    expect(found[0]?.path).toBe('memory/2026-02-16.md')
  }, 120_000)

  it('answers each of many flushes arriving at once its own lines, a concurrent retry once, the too-large alone', async () => {
    const t = await start({ ws: createTempWorkspace(), env: { MNEMO_MAX_FILE_BYTES: '2048' } })
    const bodies = Array.from({ length: 12 }, (_, i) => ({ entries: [`- batch note ${i}`], flushId: `batch-${i}` }))
    // Alone it fits an empty day file; after the twelve small ones it does not.
    const big = { content: `- ${'x'.repeat(1900)}`, flushId: 'batch-big' }
    const answers = await Promise.all([...bodies, bodies[3]!, big].map((b) => flush(t, b)))
    const landed = answers.filter((a) => a.status === 200)
    for (const a of landed) {
      const text = await window(t, 'memory/2026-02-16.md', a.body.startLine!, a.body.endLine!)
      expect(text).toMatch(
        /^## 23:59:58\n<!-- mnemo:flush id=(batch-\d+|batch-big) lines=1 -->\n- (batch note \d+|x+)$/,
      )
    }
    const refused = answers.filter((a) => a.status !== 200)
    expect(refused.length).toBeGreaterThan(0)
    expect(refused.every((a) => a.status === 413 && a.body.code === 'PAYLOAD_TOO_LARGE')).toBe(true)
    // batch-3 and its retry name the lines of the one entry both share; one of them replayed.
    expect(answers[12]).toMatchObject({ status: 200, body: { startLine: answers[3]!.body.startLine } })
    expect(answers.filter((a) => a.body.replayed)).toHaveLength(1)
    expect(answers[3]!.body.replayed !== answers[12]!.body.replayed).toBe(true)
    const file = t.ws.read('memory/2026-02-16.md')
    expect(Buffer.byteLength(file)).toBeLessThanOrEqual(2048)
    // Every note answered 200 is in the file once; none refused is.
    const ids = [...file.matchAll(/id=([\w-]+)/g)].map((m) => m[1])
    expect(ids.sort()).toEqual(
      [...bodies, big]
        .filter((_, i) => answers[i === 12 ? 13 : i]!.status === 200)
        .map((b) => b.flushId)
        .sort(),
    )
  })

  it('with no notes, syncs what changed on disk and answers when it is searchable', async () => {
    const t = await start()
    t.ws.write('memory/direct.md', '# Direct\nWritten by another program: a narwhal.\n')
    expect((await t.search({ query: 'narwhal' })).body.results).toEqual([])
    for (const body of [undefined, {}, { entries: [] }, { content: '  \n' }]) {
      const res = await flush(t, body)
      expect(res.body).toEqual({ indexed: true, drained: true })
    }
    expect((await t.search({ query: 'narwhal' })).body.results.map((r) => r.path)).toEqual(['memory/direct.md'])
  })

  it.each([
    [{ content: 'a', entries: ['b'] }],
    [{ content: 'a', date: '2026-02-30' }],
    [{ content: 'a', date: '16-02-2026' }],
    [{ content: 'a', flushId: 'has space' }],
    [{ content: 'a', flushId: 'x'.repeat(129) }],
    [{ content: 'a', agentId: 'two\nlines' }],
    [{ content: 'a', extra: true }],
    [{ content: 'forged <!-- mnemo:flush id=x lines=1 -->' }],
  ])('refuses %j with 400 and appends nothing', async (body) => {
    const t = await start()
    const before = t.ws.read('memory/2026-02-16.md')
    const res = await flush(t, body)
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('VALIDATION_FAILED')
    expect(t.ws.read('memory/2026-02-16.md')).toBe(before)
  })
})
