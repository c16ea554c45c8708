/**
 * A folder swapped for a symlink to outside the workspace while requests and syncs run: a
 * real thread renames `memory/sub` and a symlink in and out of place as fast as it can for
 * a bounded time. Nothing outside may be read, indexed, written or created.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { startSwapper } from '../helpers/folder-swapper.js'

const SWAP_MS = 4000
const SECRET = 'ZEBRAFISH-OUTSIDE-7731'

let t: TestApp
afterEach(() => t.close())

describe('a folder swapped for a symlink during requests', () => {
  it('never lets a read, a write, a sync or a search reach outside the workspace', async () => {
    t = await buildTestApp({ sync: false })
    const outside = path.join(t.ws.base, 'outside')
    fs.mkdirSync(outside)
    const outsideFiles = {
      'note.md': `# Outside\n${SECRET} lives here.\n`,
      'secret.md': `# Only outside\n${SECRET} again.\n`,
    }
    for (const [name, text] of Object.entries(outsideFiles)) fs.writeFileSync(path.join(outside, name), text)
    t.ws.write('memory/sub/note.md', '# Inside\nAn ordinary note.\n')
    fs.symlinkSync(outside, t.ws.abs('memory/sub.link'))

    const statuses: number[] = []
    const leaks: string[] = []
    const check = (what: string, status: number, body: string) => {
      statuses.push(status)
      if (body.includes(SECRET)) leaks.push(what)
    }
    const swapper = startSwapper(t.ws.abs('memory'), 'sub')
    const until = Date.now() + SWAP_MS
    let round = 0
    while (Date.now() < until) {
      round++
      const results = await Promise.all([
        t.app.inject({ method: 'GET', url: '/files/memory/sub/note.md' }),
        t.app.inject({ method: 'GET', url: '/files/memory/sub/secret.md' }),
        t.app.inject({ method: 'POST', url: '/files/memory/sub/note.md', payload: { content: `- append ${round}` } }),
        t.app.inject({ method: 'PUT', url: `/files/memory/sub/put-${round}.md`, payload: { content: 'x' } }),
        t.app.inject({ method: 'POST', url: '/flush', payload: { content: `- flush ${round}` } }),
        t.app.inject({ method: 'POST', url: '/index?wait=true', payload: {} }),
        t.app.inject({ method: 'POST', url: '/search', payload: { query: SECRET, minScore: 0 } }),
      ])
      results.forEach((res, i) => check(`request ${i} of round ${round}`, res.statusCode, res.body))
    }
    const swaps = await swapper.stop()
    if (fs.existsSync(t.ws.abs('memory/sub.real'))) {
      fs.rmSync(t.ws.abs('memory/sub'), { recursive: true, force: true })
      fs.renameSync(t.ws.abs('memory/sub.real'), t.ws.abs('memory/sub'))
    }
    await t.sync()
    check(
      'final search',
      200,
      (await t.search({ query: SECRET, minScore: 0 })).body.results.map((r) => r.snippet).join(),
    )

    expect(swaps).toBeGreaterThan(100)
    expect(round).toBeGreaterThan(5)
    expect(leaks).toEqual([])
    expect(statuses.filter((s) => s >= 500)).toEqual([])
    // Nothing outside was changed or created.
    expect(fs.readdirSync(outside).sort()).toEqual(Object.keys(outsideFiles).sort())
    for (const [name, text] of Object.entries(outsideFiles)) {
      expect(fs.readFileSync(path.join(outside, name), 'utf8')).toBe(text)
    }
  })
})
