import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { useTestApp, type SearchBody, type TestApp } from '../helpers/build-test-app.js'
import { createFakeEmbedder } from '../helpers/fake-embedder.js'
import { createTempWorkspace, type TempWorkspace } from '../helpers/temp-workspace.js'

/** Notes about the deploy, written at different times (every one matches "deploy"). */
function writeNotes(ws: TempWorkspace): void {
  ws.write('MEMORY.md', '# Facts\n- The deploy needs two approvals.\n')
  ws.write(
    'memory/2026-03-01.md',
    '## 09:00:00\n- Deploy to staging went fine.\n\n' +
      '## 16:30:00\n' +
      // Long enough that the afternoon entry is a chunk of its own.
      `- Deploy to production postponed: ${'the load balancer health checks kept flapping. '.repeat(40)}\n`,
  )
  ws.write('memory/2026-03-10.md', '- Deploy rollback drill.\n')
  ws.write('memory/projects/deploy.md', '# Deploy plan\n- Blue-green deploy with a canary.\n')
  // A note outside the day files is dated by its modification time.
  const feb1 = new Date(2026, 1, 1, 12, 0)
  fs.utimesSync(ws.abs('memory/projects/deploy.md'), feb1, feb1)
}

async function start(embedder = false): Promise<TestApp> {
  const ws = createTempWorkspace()
  writeNotes(ws)
  const t = await useTestApp({ ws, ...(embedder && { overrides: { embedder: createFakeEmbedder().provider } }) })
  return t
}

const found = (body: SearchBody) => body.results.map((r) => `${r.path}#${r.startLine}`).sort()

describe('POST /search with a time range', () => {
  it('keeps notes written in [after, before): day files by name, entries by heading, others by mtime', async () => {
    const t = await start()
    const search = async (range: object) => {
      const res = await t.search({ query: 'deploy', minScore: 0, maxResults: 20, ...range })
      expect(res.statusCode, JSON.stringify(res.body)).toBe(200)
      return found(res.body)
    }
    expect(await search({})).toEqual([
      'MEMORY.md#1',
      'memory/2026-03-01.md#1',
      'memory/2026-03-01.md#4',
      'memory/2026-03-10.md#1',
      'memory/projects/deploy.md#1',
    ])
    // One day: its entries, and MEMORY.md (undated, kept unless datedOnly).
    expect(await search({ after: '2026-03-01', before: '2026-03-02' })).toEqual([
      'MEMORY.md#1',
      'memory/2026-03-01.md#1',
      'memory/2026-03-01.md#4',
    ])
    expect(await search({ after: '2026-03-01', before: '2026-03-02', datedOnly: true })).toEqual([
      'memory/2026-03-01.md#1',
      'memory/2026-03-01.md#4',
    ])
    // The afternoon entry only, by its heading's time.
    expect(await search({ after: '2026-03-01T12:00', before: '2026-03-02', datedOnly: true })).toEqual([
      'memory/2026-03-01.md#4',
    ])
    expect(await search({ after: '2026-03-05', datedOnly: true })).toEqual(['memory/2026-03-10.md#1'])
    expect(await search({ before: '2026-02-15', datedOnly: true })).toEqual(['memory/projects/deploy.md#1'])
    expect(await search({ datedOnly: true })).not.toContain('MEMORY.md#1')
  })

  it('applies the range to the vector side of a hybrid search too', async () => {
    const t = await start(true)
    const res = await t.search({ query: 'deploy', minScore: 0, maxResults: 20, after: '2026-03-05' })
    expect(res.body.mode).toBe('hybrid')
    expect(found(res.body)).toEqual(['MEMORY.md#1', 'memory/2026-03-10.md#1'])
    const vector = await t.search({
      query: 'deploy',
      mode: 'vector',
      minScore: 0,
      maxResults: 20,
      before: '2026-02-15',
    })
    expect(vector.statusCode).toBe(200)
    expect(found(vector.body)).toEqual(['MEMORY.md#1', 'memory/projects/deploy.md#1'])
  })

  it('takes dates of the years 0 to 99 (a Date rolled them into 1900-1999: the bound was refused, the day file undated)', async () => {
    const t = await start()
    t.ws.write('memory/0050-01-01.md', '- Deploy by chariot.\n')
    await t.sync()
    const res = await t.search({ query: 'deploy', minScore: 0, maxResults: 20, before: '0050-01-02', datedOnly: true })
    expect(res.statusCode, JSON.stringify(res.body)).toBe(200)
    expect(found(res.body)).toEqual(['memory/0050-01-01.md#1'])
    expect((await t.search({ query: 'deploy', after: '0001-01-01' })).statusCode).toBe(200)
  })

  it.each([
    [{ after: 'last week' }, 'after'],
    [{ before: '2026-02-30' }, 'before'],
    [{ after: '2026-03-02', before: '2026-03-01' }, 'earlier than'],
    [{ after: 20260301 }, 'after'],
  ])('answers 400 VALIDATION_FAILED for %j', async (range, says) => {
    const t = await start()
    const res = await t.search({ query: 'deploy', ...range })
    expect(res.statusCode).toBe(400)
    expect(res.body.code).toBe('VALIDATION_FAILED')
    expect(JSON.stringify(res.body)).toContain(says)
  })
})
