/**
 * Files that grow at their end are prepared from their last checkpoint (prepare-file.ts,
 * chunker.ts chunkMarkdownFrom) and their rows matched as a multiset (chunk-diff.ts). The
 * promise is that none of it shows: after any sequence of writes the index answers exactly
 * as an index built from scratch over the same files does (same files, chunks, lines,
 * snippets, scores, dates). Each test writes through the API and then compares every answer
 * with a fresh app (a fresh prepare cache) over a copy of the files.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useAgentsApp } from '../helpers/agents-app.js'
import { useTestApp, type TestApp } from '../helpers/build-test-app.js'
import { createFakeEmbedder } from '../helpers/fake-embedder.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'
import { waitFor } from '../helpers/wait-for.js'
import type { ContainerOverrides } from '../../src/wiring/container.js'

/** Small chunks, so a few lines of text make several of them and appends cross chunk ends. */
const ENV = {
  MNEMO_CHUNK_TOKENS: '32',
  MNEMO_CHUNK_OVERLAP_TOKENS: '8',
  MNEMO_SESSIONS_DIR: 'sessions',
  // The race below sends some 40 requests of one agent at once: they wait their turn however
  // slow the machine is, rather than meet the agent's limits (tested on their own).
  MNEMO_AGENT_MAX_CONCURRENT: '16',
  MNEMO_AGENT_QUEUE_MS: '30000',
}

/** 2026-03-01 14:00 local: flushes go to memory/2026-03-01.md. */
const NOW = new Date(2026, 2, 1, 14, 0, 0).getTime()

/** Words the texts below are made of: together the searches reach every chunk. */
const QUERIES = ['zebra', 'quokka', 'lorem ipsum', 'same line', 'fence code', 'deploy', 'heading', 'crlf', 'tail']

type Answers = Record<string, unknown>

/** Everything the index answers about the files: the listing and every search, in a stable order. */
async function answers(t: TestApp, extra: Record<string, unknown> = {}): Promise<Answers> {
  const list = (await t.app.inject({ method: 'GET', url: '/files' })).json<{ files: Record<string, unknown>[] }>()
  const out: Answers = {
    files: list.files.map(({ path: p, chunks, lines, sha256, sizeBytes }) => ({ p, chunks, lines, sha256, sizeBytes })),
  }
  const ranges = [{}, { after: '2026-03-01', before: '2026-03-02', datedOnly: true }, { after: '2026-03-01T12:00' }]
  for (const query of QUERIES) {
    for (const range of ranges) {
      const res = await t.search({ query, maxResults: 100, minScore: 0, ...range, ...extra })
      expect(res.statusCode, JSON.stringify(res.body)).toBe(200)
      // Equal scores may come in either order (row ids differ between the two indexes).
      out[`${query} ${JSON.stringify(range)}`] = res.body.results
        .map((r) => `${r.path}:${r.startLine}-${r.endLine} ${r.score.toFixed(6)} ${JSON.stringify(r.snippet)}`)
        .sort()
    }
  }
  return out
}

/** The answers of a fresh app over a copy of `t`'s files (their modification times kept). */
async function freshAnswers(t: TestApp, overrides: ContainerOverrides = {}, extra: Record<string, unknown> = {}) {
  const ws = createTempWorkspace()
  fs.cpSync(t.ws.root, ws.root, { recursive: true, preserveTimestamps: true })
  const sessions = path.join(t.ws.base, 'sessions')
  if (fs.existsSync(sessions))
    fs.cpSync(sessions, path.join(ws.base, 'sessions'), { recursive: true, preserveTimestamps: true })
  const fresh = await useTestApp({ ws, env: ENV, overrides: { now: () => NOW, ...overrides } })
  return answers(fresh, extra)
}

async function put(t: TestApp, rel: string, content: string): Promise<void> {
  const res = await t.app.inject({ method: 'PUT', url: `/files/${rel}`, payload: { content } })
  expect(res.statusCode, res.body).toBeLessThan(300)
  expect(res.json(), 'indexed by its own pass').toMatchObject({ indexed: true })
}

async function append(t: TestApp, rel: string, content: string): Promise<void> {
  const res = await t.app.inject({ method: 'POST', url: `/files/${rel}`, payload: { content } })
  expect(res.statusCode, res.body).toBeLessThan(300)
  expect(res.json(), 'indexed by its own pass').toMatchObject({ indexed: true })
}

async function flush(t: TestApp, body: object): Promise<void> {
  const res = await t.app.inject({ method: 'POST', url: '/flush', payload: body })
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json(), 'indexed by its own pass').toMatchObject({ indexed: true })
}

/** POST /index full: a rebuild asked for while another runs is refused (409 INDEX_BUSY), which is fine here. */
async function rebuild(t: TestApp): Promise<void> {
  const res = await t.app.inject({ method: 'POST', url: '/index?wait=true', payload: { full: true } })
  if (res.statusCode !== 200) expect(res.json(), res.body).toMatchObject({ code: 'INDEX_BUSY' })
}

const start = (overrides: ContainerOverrides = {}) =>
  useTestApp({ env: ENV, overrides: { now: () => NOW, ...overrides } })

const LONG = 'lorem ipsum dolor sit amet. '.repeat(20)

describe('files prepared from their checkpoints', () => {
  it('answer as a fresh index after appends, edits, truncation and rewrites', async () => {
    const t = await start()
    const day = 'memory/2026-03-01.md'
    const note = 'memory/notes.md'
    await put(t, day, '# Day\n- deploy zebra one\n- deploy zebra two\n')
    await put(t, note, '# Notes\nquokka first\n')
    // A last line without a newline grows, then ends.
    await put(t, note, '# Notes\nquokka first\ntail without')
    await put(t, note, '# Notes\nquokka first\ntail without a newline, now ended\n')
    // A fence left open, closed by a later append; a heading alone at the end, then its body.
    await append(t, note, '```\nfence code zebra\n')
    await append(t, note, 'more fence code\n```\nafter the fence quokka\n## Heading alone\n')
    await append(t, note, 'heading body quokka\n')
    // A long line cut into pieces, then more after it; repetitive equal lines in two goes.
    await append(t, note, `${LONG}\nquokka after lorem\n`)
    await append(t, note, 'same line\n'.repeat(30))
    await append(t, note, 'same line\n'.repeat(30))
    // Flushes into the day file, one retried.
    await flush(t, { content: '- deploy quokka decided', flushId: 'f-1' })
    await flush(t, { content: '- deploy quokka decided', flushId: 'f-1' })
    await flush(t, { entries: ['- zebra entry', `- ${LONG}`], flushId: 'f-2' })
    expect(await answers(t)).toEqual(await freshAnswers(t))

    // An edit in the middle, one at the start, a truncation, a shorter file with the same start.
    const text = t.ws.read(note)
    await put(t, note, text.replace('more fence code', 'more fence code edited'))
    await put(t, note, `# Notes renamed heading\n${t.ws.read(note).split('\n').slice(1).join('\n')}`)
    await append(t, note, 'quokka appended after edits\n')
    await put(t, note, t.ws.read(note).slice(0, Math.floor(t.ws.read(note).length / 2)))
    await put(t, day, '# Day\n- deploy zebra one\n')
    await flush(t, { content: '- deploy after the truncation zebra', flushId: 'f-3' })
    expect(await answers(t)).toEqual(await freshAnswers(t))
  })

  it('answer as a fresh index for a CRLF file and a last line ending in a lone CR', async () => {
    const t = await start()
    const rel = 'memory/2026-03-01-crlf.md'
    t.ws.write(rel, '# CRLF heading\r\ncrlf zebra line\r\ncrlf tail\r')
    await t.sync()
    t.ws.write(rel, '# CRLF heading\r\ncrlf zebra line\r\ncrlf tail\r\n```\r\nfence code crlf\r\n')
    await t.sync()
    t.ws.write(rel, `${t.ws.read(rel)}\`\`\`\r\n## 15:00:00\r\ncrlf quokka ${LONG}\r\n`)
    await t.sync()
    expect(await answers(t)).toEqual(await freshAnswers(t))
  })

  it('answer as a fresh index when appends race flushes, searches and a full rebuild', async () => {
    const t = await start()
    const day = 'memory/2026-03-01.md'
    await put(t, day, '# Day\n- deploy zebra base\n')
    const work: Promise<unknown>[] = []
    for (let i = 0; i < 12; i++) {
      work.push(append(t, day, `- zebra append ${i} quokka\n${i % 3 === 0 ? `${LONG}\n` : ''}`))
      // Ids come back with their notes: retries, replayed.
      work.push(flush(t, { content: `- deploy flush ${i % 5} zebra`, flushId: `race-${i % 5}` }))
      work.push(t.search({ query: 'zebra', maxResults: 100, minScore: 0 }))
      // Rewrites to a shorter file with the same first lines, and full rebuilds, in the middle.
      if (i === 5) work.push(put(t, day, '# Day\n- deploy zebra base\n- rewritten quokka\n'))
      if (i % 4 === 0) work.push(rebuild(t))
    }
    await Promise.all(work)
    // No sync after: each write's own pass left the index as a fresh one over its files.
    expect(await answers(t)).toEqual(await freshAnswers(t))
  })

  it('answer as a fresh index, vectors too, after appends while the embedding provider was down', async () => {
    const embedder = createFakeEmbedder()
    const t = await start({ embedder: embedder.provider })
    const day = 'memory/2026-03-01.md'
    await put(t, day, '# Day\n- deploy zebra base\n')
    embedder.fail()
    await append(t, day, '- quokka while down\n')
    await flush(t, { content: '- deploy zebra while down', flushId: 'down-1' })
    embedder.recover()
    await append(t, day, `- quokka after recovery ${LONG}\n`)
    await t.sync()
    const hybrid = { mode: 'hybrid' }
    expect(await answers(t, hybrid)).toEqual(await freshAnswers(t, { embedder: createFakeEmbedder().provider }, hybrid))
  })
})

describe('a note dated by its modification time', () => {
  it('keeps the dates of its unchanged chunks across appends and touches, until a full rebuild', async () => {
    const t = await start()
    const rel = 'memory/projects/plan.md'
    const setMtime = (date: Date) => fs.utimesSync(t.ws.abs(rel), date, date)
    t.ws.write(rel, `# Plan\n- zebra first note ${LONG}\n\n`)
    setMtime(new Date(2026, 1, 1, 12, 0))
    await t.sync()
    fs.appendFileSync(t.ws.abs(rel), '## Later\n- quokka second note\n')
    setMtime(new Date(2026, 2, 5, 12, 0))
    await t.sync()
    const found = async (range: object) =>
      (await t.search({ query: 'zebra quokka', maxResults: 100, minScore: 0, datedOnly: true, ...range })).body.results
        .map((r) => `${r.startLine}-${r.endLine}`)
        .sort()
    const february = { before: '2026-02-15' }
    const march = { after: '2026-03-01', before: '2026-03-06' }
    const before = { february: await found(february), march: await found(march) }
    // The first note's chunks were written in February, the second note in March.
    expect(before.february.length).toBeGreaterThan(0)
    expect(before.march.length).toBeGreaterThan(0)
    expect(before.february.some((r) => before.march.includes(r))).toBe(false)
    // A touch changes no chunk, so no date.
    setMtime(new Date(2026, 3, 1, 12, 0))
    await t.sync()
    expect({ february: await found(february), march: await found(march) }).toEqual(before)
    // A full rebuild dates every chunk by the file's modification time, as a fresh index does.
    await t.sync(true)
    expect({ february: await found(february), march: await found(march) }).toEqual({ february: [], march: [] })
    expect(await answers(t)).toEqual(await freshAnswers(t))
  })
})

describe('flush markers', () => {
  it('stay out of the index when the day file is written back with CRLF line ends', async () => {
    const t = await start()
    const day = 'memory/2026-03-01.md'
    await flush(t, { content: '- deploy decided', flushId: 'zebracorn-1' })
    expect((await t.search({ query: 'zebracorn', minScore: 0 })).body.results).toEqual([])
    // A client (an editor on Windows) reads the file and writes it back whole, markers kept.
    await put(t, day, t.ws.read(day).replaceAll('\n', '\r\n'))
    expect(t.ws.read(day)).toContain('zebracorn-1')
    expect((await t.search({ query: 'zebracorn', minScore: 0 })).body.results).toEqual([])
    await flush(t, { content: '- deploy decided', flushId: 'zebracorn-1' })
    expect(t.ws.read(day).split('deploy decided')).toHaveLength(2)
  })
})

describe('a file big enough to be written in stages', () => {
  it('answers as a fresh index after appends and a line inserted at its start', async () => {
    const t = await start()
    const day = 'memory/2026-03-01.md'
    // About 9,000 terms: a change of all its chunks is staged over several transactions.
    const entries = Array.from({ length: 600 }, (_, i) => `- entry ${i} deploy zebra note ${i % 7 === 0 ? LONG : ''}`)
    await put(t, day, `# Day\n${entries.join('\n')}\n`)
    await append(t, day, '- quokka appended to the big file\n')
    await put(t, day, `- tail first line now\n${t.ws.read(day)}`)
    await append(t, day, 'same line\n'.repeat(5))
    await flush(t, { content: '- deploy flushed into the big file', flushId: 'big-1' })
    expect(await answers(t)).toEqual(await freshAnswers(t))
  })
})

describe('a transcript that grows turn by turn', () => {
  it('answers as a fresh index, a turn half written included', async () => {
    const t = await start()
    const file = path.join(t.ws.base, 'sessions', 'main.jsonl')
    fs.mkdirSync(path.dirname(file), { recursive: true })
    const turn = (role: string, content: string) => `${JSON.stringify({ role, content })}\n`
    fs.writeFileSync(file, turn('user', 'deploy zebra question') + turn('assistant', `quokka ${LONG}`))
    await t.sync()
    // A turn half written (not JSON yet), then whole, then more turns and a line not JSON.
    const half = turn('user', 'tail zebra half written')
    fs.appendFileSync(file, half.slice(0, 20))
    await t.sync()
    fs.appendFileSync(file, half.slice(20))
    await t.sync()
    fs.appendFileSync(file, `not json {\n${turn('assistant', '```\nfence code\n```')}${turn('user', 'same line')}`)
    await t.sync()
    expect(await answers(t)).toEqual(await freshAnswers(t))
  })
})

describe('a long line cut into pieces', () => {
  it('gets a vector on every piece, equal pieces too, and keeps them across appends', async () => {
    const t = await start({ embedder: createFakeEmbedder().provider })
    const day = 'memory/2026-03-01.md'
    // Pieces of one line share its start line; the repeated sentence makes some of them equal.
    await put(t, day, `# Day\n- deploy zebra ${LONG}\n`)
    await append(t, day, `- quokka ${LONG}${'zebra tail. '.repeat(30)}\n`)
    const status = (await t.app.inject({ method: 'GET', url: '/index' })).json<{ vectorsPending: number }>()
    expect(status.vectorsPending).toBe(0)
    const hybrid = { mode: 'hybrid' }
    expect(await answers(t, hybrid)).toEqual(await freshAnswers(t, { embedder: createFakeEmbedder().provider }, hybrid))
  })
})

describe('an embedding model changed between appends', () => {
  it('answers as a fresh index with the new model', async () => {
    const ws = createTempWorkspace()
    const day = 'memory/2026-03-01.md'
    const first = await useTestApp({
      ws,
      env: ENV,
      overrides: { now: () => NOW, embedder: createFakeEmbedder().provider },
    })
    await put(first, day, `# Day\n- deploy zebra ${LONG}\n`)
    await append(first, day, '- quokka with the first model\n')
    await first.app.close()
    const model = () => createFakeEmbedder({ dims: 24, model: 'fake-other' }).provider
    const t = await useTestApp({ ws, env: ENV, overrides: { now: () => NOW, embedder: model() } })
    await append(t, day, '- zebra with the second model\n')
    await t.sync()
    // The new model's dimensions rebuild the index in the background (index settings changed).
    const status = await waitFor(async () => {
      const s = (await t.app.inject({ method: 'GET', url: '/index' })).json<{ rebuilding: boolean }>()
      return s.rebuilding ? undefined : s
    })
    expect(status).toMatchObject({ embedding: { model: 'fake-other', dims: 24 }, vectorsPending: 0 })
    const hybrid = { mode: 'hybrid' }
    expect(await answers(t, hybrid)).toEqual(await freshAnswers(t, { embedder: model() }, hybrid))
  })
})

describe('two agents with the same day file', () => {
  it('answer each from its own text', async () => {
    const t = await useAgentsApp({ overrides: { now: () => NOW }, env: ENV })
    const day = 'memory/2026-03-01.md'
    const write = async (agent: string, content: string) => {
      const res = await t.call('POST', `/files/${day}`, { agent, payload: { content } })
      expect(res.statusCode, res.body).toBeLessThan(300)
    }
    // The same first lines, then each its own: neither may be prepared from the other's checkpoint.
    for (const agent of ['ana', 'bo']) await write(agent, '# Day\n- deploy zebra shared start\n')
    await write('ana', '- quokka only ana\n')
    await write('bo', '- zebra only bo\n')
    await write('ana', `- ${LONG}\n`)
    const found = async (agent: string, query: string) =>
      (await t.call('POST', '/search', { agent, payload: { query, maxResults: 100, minScore: 0 } })).json<{
        results: { path: string; snippet: string }[]
      }>().results
    expect((await found('ana', 'zebra only bo')).some((r) => r.snippet.includes('only bo'))).toBe(false)
    expect((await found('bo', 'quokka only ana')).some((r) => r.snippet.includes('only ana'))).toBe(false)
    expect(fs.readFileSync(path.join(t.agentsDir, 'bo', ...day.split('/')), 'utf8')).toBe(
      '# Day\n- deploy zebra shared start\n- zebra only bo\n',
    )
  })
})
