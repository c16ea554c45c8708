/**
 * @mnemo/client (src/client) against a real mnemo listening on a port: every method does
 * what its route does, failures are MnemoError with the API's stable code, `for await` reads
 * the change events, export and import stream, and a stopped service is a prompt
 * UNREACHABLE, not a hang. (Retries and timeouts: src/client/http.test.ts.)
 */
import net from 'node:net'
import { describe, expect, it } from 'vitest'
import { Mnemo } from '../../src/client/index.js'
import { useAgentsApp } from '../helpers/agents-app.js'
import { failure } from '../helpers/mnemo-error.js'

const ADMIN = 'client-admin-token-0123456789'
const OPS = 'client-ops-token-0123456789'

async function listening() {
  const t = await useAgentsApp({ env: { MNEMO_API_TOKEN: ADMIN, MNEMO_AGENT_TOKENS: `ops:${OPS}` } })
  t.ws.write('MEMORY.md', '# Facts\n\n- The staging Redis port is 6380.\n- 部署窗口是周二下午。\n')
  await t.sync()
  await t.app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = t.app.server.address() as net.AddressInfo
  return { t, baseUrl: `http://127.0.0.1:${port}` }
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = net.createServer()
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
  const { port } = srv.address() as net.AddressInfo
  await new Promise((resolve) => srv.close(resolve))
  return port
}

describe('@mnemo/client', () => {
  it('searches, reads, writes with If-Match, appends with a key, supersedes, flushes once, deletes', async () => {
    const { baseUrl } = await listening()
    const mnemo = new Mnemo({ baseUrl, token: ADMIN })
    const found = await mnemo.search({ query: 'staging redis port' })
    expect(found.results[0]).toMatchObject({ path: 'MEMORY.md', startLine: 1 })
    expect((await mnemo.search({ query: '部署 周二' })).results).toHaveLength(1)

    const file = await mnemo.read('MEMORY.md', { from: 3, lines: 1 })
    expect(file).toMatchObject({ from: 3, to: 3, text: '- The staging Redis port is 6380.' })
    const stale = await failure(mnemo.write('MEMORY.md', '# Facts\n', { ifMatch: '0'.repeat(64) }))
    expect([stale.code, stale.status]).toEqual(['PRECONDITION_FAILED', 412])
    expect(stale.requestId).toMatch(/^[0-9a-f]{32}$/)
    const written = await mnemo.write('memory/2026-11-01.md', '# 2026-11-01\n', { ifNoneMatch: '*' })
    expect(written.created).toBe(true)
    const appended = await mnemo.append('memory/2026-11-01.md', '- Deploys on Tuesday.', { key: 'deploy-day' })
    expect(appended.indexed).toBe(true)
    const superseded = await mnemo.supersede({ key: 'deploy-day', content: '- Deploys on Wednesday.' })
    expect(superseded.superseded).toHaveLength(1)
    expect((await mnemo.search({ query: 'deploys wednesday' })).results[0]?.path).toBe('memory/2026-11-01.md')

    const flushed = await mnemo.flush({ entries: ['Decided: keep qwen-max'], flushId: 'turn-1', sessionId: 's-1' })
    const again = await mnemo.flush({ entries: ['Decided: keep qwen-max'], flushId: 'turn-1', sessionId: 's-1' })
    expect(again).toMatchObject({ replayed: true, path: flushed.path, startLine: flushed.startLine })
    expect((await mnemo.list()).map((f) => f.path)).toContain('memory/2026-11-01.md')
    expect(await mnemo.delete('memory/2026-11-01.md')).toMatchObject({ deleted: true })
    expect((await failure(mnemo.read('memory/2026-11-01.md'))).code).toBe('FILE_NOT_FOUND')
    expect((await failure(mnemo.read('../etc/passwd'))).code).toBe('PATH_INVALID')
  })

  it('acts for an agent and a user, and says what a token may not do', async () => {
    const { baseUrl } = await listening()
    const ops = new Mnemo({ baseUrl, token: OPS })
    await ops.as({ user: 'alice' }).append('users/alice/MEMORY.md', '- Alice prefers short answers.')
    expect((await ops.as({ user: 'alice' }).search({ query: 'alice short answers' })).results).toHaveLength(1)
    expect((await ops.search({ query: 'alice short answers' })).results).toHaveLength(0)
    const admin = new Mnemo({ baseUrl, token: ADMIN })
    expect((await admin.as({ agent: 'ops' }).users()).users.map((u) => u.id)).toEqual(['alice'])
    expect((await failure(ops.as({ agent: 'main' }).search({ query: 'x' }))).code).toBe('AGENT_FORBIDDEN')
    expect((await failure(ops.agents())).code).toBe('AGENT_FORBIDDEN')
    const wrong = await failure(new Mnemo({ baseUrl, token: 'not-a-token-0123456789' }).status())
    expect([wrong.code, wrong.status]).toEqual(['UNAUTHORIZED', 401])
    expect((await admin.ready()).ready).toBe(true)
  })

  it('reads change events with for await, and streams an export into an import', async () => {
    const { baseUrl } = await listening()
    const mnemo = new Mnemo({ baseUrl, token: ADMIN })
    const abort = new AbortController()
    const seen: string[] = []
    const reading = (async () => {
      for await (const e of mnemo.events({ signal: abort.signal })) {
        seen.push(e.event)
        if (e.event === 'ready') await mnemo.append('memory/2026-11-02.md', '- An event.')
        if (e.event === 'file.written') {
          expect(e.data.path).toBe('memory/2026-11-02.md')
          abort.abort()
        }
      }
    })()
    await reading
    expect(seen).toContain('file.written')

    const archive = new Uint8Array(await new Response(await mnemo.exportArchive()).arrayBuffer())
    expect(archive.length).toBeGreaterThan(512)
    await mnemo.delete('memory/2026-11-02.md')
    const imported = await mnemo.importArchive(archive, { existing: 'keep' })
    // The admin exports the whole deployment, each agent's files under its id.
    expect(imported.files.find((f) => f.path === 'main/memory/2026-11-02.md')?.outcome).toBe('created')
    expect((await mnemo.read('memory/2026-11-02.md')).text).toBe('- An event.')
  })

  it('fails promptly with UNREACHABLE when nothing listens, after its retries', async () => {
    const mnemo = new Mnemo({ baseUrl: `http://127.0.0.1:${await closedPort()}`, retries: 1 })
    const started = Date.now()
    const err = await failure(mnemo.search({ query: 'anything' }))
    expect([err.code, err.status]).toEqual(['UNREACHABLE', null])
    expect(err.message).toContain('Could not reach mnemo')
    expect(Date.now() - started).toBeLessThan(5000)
  })
})
