/**
 * Folder identity (issue 16, SPEC §8): a space's folder is held from when it opens. A
 * folder replaced afterwards — a symlink to another agent's folder, another folder renamed
 * into its place, a swapped team folder or workspace — is refused with 409 PATH_CHANGED,
 * never followed: nothing of the other folder is read, found, changed or created.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import { useTestApp } from '../helpers/build-test-app.js'
import { startSwapper } from '../helpers/folder-swapper.js'
import { waitFor } from '../helpers/wait-for.js'

const ALICE = 'alice-token-0123456789abcdef'
const BOB = 'bob-token-0123456789abcdefgh'
const SECRET = 'MARLIN-QUARTERLY-4471'
const SWAP_MS = 3000

/** Every file under `dir` with its content (a snapshot to compare). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const abs = path.join(entry.parentPath, entry.name)
    out[path.relative(dir, abs)] = entry.isFile() ? fs.readFileSync(abs, 'utf8') : '<dir>'
  }
  return out
}

/** Alice and bob with a note each, alice's space open, and what bob's folder holds. */
async function twoAgents(opts: { env?: Record<string, string>; logs?: string[] } = {}) {
  const app = await useAgentsApp({
    env: { MNEMO_AGENT_TOKENS: `alice:${ALICE},bob:${BOB}`, ...opts.env },
    ...(opts.logs && { logs: opts.logs }),
  })
  const alice = await app.call('PUT', '/files/MEMORY.md', { token: ALICE, payload: { content: '# Alice\n- tea\n' } })
  expect(alice.statusCode).toBe(201)
  const bob = await app.call('POST', '/files/memory/2026-03-01.md', {
    token: BOB,
    payload: { content: `- Bob's report codename is ${SECRET}.` },
  })
  expect(bob.statusCode).toBe(200)
  const bobDir = path.join(app.agentsDir, 'bob')
  return { app, bobDir, bobBefore: snapshot(bobDir), aliceDir: path.join(app.agentsDir, 'alice') }
}

/** What alice's token tries against her (replaced) folder: every kind of request. */
async function aliceTries(app: AgentsApp, round = 0) {
  return Promise.all([
    app.call('PUT', '/files/MEMORY.md', { token: ALICE, payload: { content: `pwned ${round}` } }),
    app.call('POST', '/files/memory/2026-03-01.md', { token: ALICE, payload: { content: `- pwned ${round}` } }),
    app.call('PUT', `/files/memory/new-${round}.md`, { token: ALICE, payload: { content: 'pwned' } }),
    app.call('POST', '/flush', { token: ALICE, payload: { content: `- flushed ${round}` } }),
    app.call('POST', '/search', { token: ALICE, payload: { query: SECRET, minScore: 0 } }),
    app.call('GET', `/files/memory/2026-03-01.md`, { token: ALICE }),
    app.call('GET', '/files', { token: ALICE }),
    app.call('POST', '/index?wait=true', { token: ALICE, payload: {} }),
  ])
}

describe('an agent folder replaced after its space opened', () => {
  it('is refused with 409 PATH_CHANGED when it becomes a symlink to another agent, and the space closes', async () => {
    const logs: string[] = []
    const { app, bobDir, bobBefore, aliceDir } = await twoAgents({ logs })
    expect(app.container.openAgents()).toBe(2)
    fs.renameSync(aliceDir, `${aliceDir}.old`)
    fs.symlinkSync(bobDir, aliceDir)

    for (const res of await aliceTries(app)) {
      expect(res.statusCode, res.body).toBe(409)
      expect(res.json()).toMatchObject({ code: 'PATH_CHANGED', details: { folder: 'replaced' } })
      expect(res.body).not.toContain(SECRET)
    }
    expect(snapshot(bobDir)).toEqual(bobBefore)
    expect(logs.some((l) => l.includes('"level":40') && l.includes('replaced after it was opened'))).toBe(true)
    // Alice's space closed; bob's still serves bob.
    await waitFor(() => (app.container.openAgents() === 1 ? true : undefined))
    const bobSearch = await app.call('POST', '/search', { token: BOB, payload: { query: SECRET } })
    expect(bobSearch.json<{ results: unknown[] }>().results).toHaveLength(1)

    // Put back, the folder is alice's again.
    fs.unlinkSync(aliceDir)
    fs.renameSync(`${aliceDir}.old`, aliceDir)
    const back = await app.call('POST', '/search', { token: ALICE, payload: { query: 'tea' } })
    expect(back.json<{ results: { path: string }[] }>().results.map((r) => r.path)).toEqual(['MEMORY.md'])
    expect(fs.readFileSync(path.join(aliceDir, 'MEMORY.md'), 'utf8')).toBe('# Alice\n- tea\n')
  })

  it('is refused when another folder is renamed into its place, also after its space closed', async () => {
    const { app, aliceDir } = await twoAgents({ env: { MNEMO_MAX_OPEN_AGENTS: '1' } })
    // Carol's folder, made by hand, holds what alice must never see.
    app.writeAgentFile('carol', 'memory/notes.md', `- carol: ${SECRET}\n`)
    const carolDir = path.join(app.agentsDir, 'carol')
    const carolBefore = snapshot(carolDir)
    // Alice was opened, then closed to make room for bob.
    await waitFor(() => (app.container.openAgents() === 1 ? true : undefined))
    fs.renameSync(aliceDir, `${aliceDir}.old`)
    fs.renameSync(carolDir, aliceDir)

    for (const res of await aliceTries(app)) {
      expect(res.statusCode, res.body).toBe(409)
      expect(res.body).not.toContain(SECRET)
    }
    expect(snapshot(aliceDir)).toEqual(carolBefore)
    expect(fs.existsSync(carolDir)).toBe(false)
  })

  it('is never followed while a thread swaps it with a symlink to another agent', async () => {
    const logs: string[] = []
    const { app, bobDir, bobBefore, aliceDir } = await twoAgents({ logs })
    fs.symlinkSync(bobDir, `${aliceDir}.link`)
    const swapper = startSwapper(app.agentsDir, 'alice')
    const statuses: number[] = []
    const leaks: string[] = []
    const until = Date.now() + SWAP_MS
    let round = 0
    while (Date.now() < until) {
      round++
      for (const res of await aliceTries(app, round)) {
        statuses.push(res.statusCode)
        if (res.body.includes(SECRET)) leaks.push(`round ${round}: ${res.body.slice(0, 200)}`)
      }
    }
    const swaps = await swapper.stop()
    expect(swaps).toBeGreaterThan(100)
    expect(round).toBeGreaterThan(3)
    expect(leaks).toEqual([])
    expect(
      statuses.filter((s) => s >= 500),
      logs.filter((l) => l.includes('"level":50')).join('\n'),
    ).toEqual([])
    expect(snapshot(bobDir)).toEqual(bobBefore)
  })

  it('is noticed by the watcher without any request: the space closes', async () => {
    const { app, bobDir, aliceDir } = await twoAgents({
      env: { MNEMO_WATCH: 'true', MNEMO_SYNC_DEBOUNCE_MS: '20', MNEMO_MAX_OPEN_AGENTS: '2' },
    })
    expect(app.container.openAgents()).toBe(2)
    fs.renameSync(aliceDir, `${aliceDir}.old`)
    fs.symlinkSync(bobDir, aliceDir)
    await waitFor(() => (app.container.openAgents() === 1 ? true : undefined))
    const res = await app.call('POST', '/search', { token: ALICE, payload: { query: SECRET } })
    expect(res.statusCode).toBe(409)
  })
})

describe('the team folder or the workspace replaced after start', () => {
  it('refuses team memory while the team folder is a symlink elsewhere, and serves it again once put back', async () => {
    const app = await useAgentsApp({ team: true, env: { MNEMO_TEAM_WRITABLE: 'true' } })
    const team = await app.call('PUT', '/files/team/MEMORY.md', {
      payload: { content: '# Team\n- The team deploys on Fridays.\n' },
    })
    expect(team.statusCode).toBe(201)
    const put = await app.call('PUT', '/files/MEMORY.md', { agent: 'ana', payload: { content: '- ana\n' } })
    expect(put.statusCode).toBe(201)
    const outside = path.join(app.ws.base, 'outside')
    fs.mkdirSync(path.join(outside, 'memory'), { recursive: true })
    fs.writeFileSync(path.join(outside, 'MEMORY.md'), `# Outside\n- ${SECRET}\n`)
    const outsideBefore = snapshot(outside)
    fs.renameSync(app.teamDir, `${app.teamDir}.old`)
    fs.symlinkSync(outside, app.teamDir)

    for (const [method, url, payload] of [
      ['POST', '/search', { query: SECRET, minScore: 0 }],
      ['GET', '/files/team/MEMORY.md', undefined],
      ['GET', '/files', undefined],
      ['PUT', '/files/team/MEMORY.md', { content: 'pwned' }],
      ['POST', '/files/team/memory/x.md', { content: 'pwned' }],
    ] as const) {
      const res = await app.call(method, url, { agent: 'ana', payload })
      expect(res.statusCode, `${method} ${url}`).toBe(409)
      expect(res.json()).toMatchObject({ code: 'PATH_CHANGED', message: expect.stringContaining('team folder') })
      expect(res.body).not.toContain(SECRET)
    }
    // The agent's own memory still answers.
    const own = await app.call('POST', '/search', { agent: 'ana', payload: { query: 'ana', spaces: ['agent'] } })
    expect(own.statusCode).toBe(200)
    expect(snapshot(outside)).toEqual(outsideBefore)

    fs.unlinkSync(app.teamDir)
    fs.renameSync(`${app.teamDir}.old`, app.teamDir)
    const back = await app.call('POST', '/search', { agent: 'ana', payload: { query: 'Fridays deploys' } })
    expect(back.json<{ results: { path: string }[] }>().results.map((r) => r.path)).toEqual(['team/MEMORY.md'])
  })

  it('answers 409 and /ready 503 while the workspace is replaced, and recovers once it is back', async () => {
    const app = await useTestApp({ corpus: true })
    expect((await app.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200)
    const root = app.ws.root
    const other = path.join(app.ws.base, 'other')
    fs.mkdirSync(path.join(other, 'memory'), { recursive: true })
    fs.writeFileSync(path.join(other, 'MEMORY.md'), `- ${SECRET}\n`)
    fs.renameSync(root, `${root}.old`)
    fs.renameSync(other, root)

    const ready = await app.app.inject({ method: 'GET', url: '/ready' })
    expect(ready.statusCode).toBe(503)
    expect(ready.json()).toMatchObject({ ready: false, checks: { folder: 'replaced' } })
    for (const res of [
      await app.app.inject({ method: 'GET', url: '/files/MEMORY.md' }),
      await app.app.inject({ method: 'PUT', url: '/files/MEMORY.md', payload: { content: 'pwned' } }),
      await app.app.inject({ method: 'POST', url: '/search', payload: { query: SECRET, minScore: 0 } }),
    ]) {
      expect(res.statusCode).toBe(409)
      expect(res.body).not.toContain(SECRET)
    }
    expect(fs.readFileSync(path.join(root, 'MEMORY.md'), 'utf8')).toBe(`- ${SECRET}\n`)

    fs.renameSync(root, other)
    fs.renameSync(`${root}.old`, root)
    expect((await app.app.inject({ method: 'GET', url: '/ready' })).json()).toMatchObject({
      ready: true,
      checks: { folder: 'held' },
    })
    expect((await app.app.inject({ method: 'GET', url: '/files/MEMORY.md' })).statusCode).toBe(200)
  })
})
