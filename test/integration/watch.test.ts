import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { ContainerOverrides } from '../../src/wiring/container.js'
import { sha256 } from '../../src/domain/hashing.js'
import { watchSources, type WatcherFactory } from '../../src/indexing/watcher.js'
import { useTestApp, type TestApp } from '../helpers/build-test-app.js'
import { waitFor } from '../helpers/wait-for.js'
import type { IndexStatus } from '../helpers/api-types.js'

const DEBOUNCE_MS = 150
/** How long past the debounce a change may take to become searchable in these tests. */
const MARGIN_MS = 3000

async function start(env: Record<string, string> = {}, overrides: ContainerOverrides = {}) {
  const t = await useTestApp({
    corpus: true,
    start: true,
    env: { MNEMO_WATCH: 'true', MNEMO_SYNC_DEBOUNCE_MS: String(DEBOUNCE_MS), ...env },
    overrides,
  })
  return t
}

const status = async (t: TestApp) => (await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>()
const paths = async (t: TestApp, query: string) => (await t.search({ query })).body.results.map((r) => r.path)

/** Resolves with the paths once `query` finds them, or fails after `timeoutMs`. */
const searchable = (t: TestApp, query: string, timeoutMs = DEBOUNCE_MS + MARGIN_MS) =>
  waitFor(async () => {
    const found = await paths(t, query)
    return found.length > 0 ? found : undefined
  }, timeoutMs)

/** Resolves once `query` finds exactly `expected`, or fails after the debounce and margin. */
const findsExactly = (t: TestApp, query: string, expected: string[]) =>
  waitFor(async () => {
    const found = await paths(t, query)
    return JSON.stringify(found) === JSON.stringify(expected) ? found : undefined
  }, DEBOUNCE_MS + MARGIN_MS)

const idle = (t: TestApp) =>
  waitFor(async () => {
    const s = await status(t)
    return !s.syncing && !s.queued && !s.dirty ? s : undefined
  })

describe('the sync trigger', () => {
  it('makes an edit on disk searchable within the debounce', async () => {
    const t = await start()
    expect(await status(t)).toMatchObject({ watching: true })
    t.ws.write('memory/fresh.md', '# Fresh\nThe okapi moved to the north enclosure.\n')
    expect(await searchable(t, 'okapi enclosure')).toEqual(['memory/fresh.md'])
    fs.appendFileSync(t.ws.abs('memory/fresh.md'), 'A capybara joined it.\n')
    expect(await searchable(t, 'capybara')).toEqual(['memory/fresh.md'])
  })

  it('turns a burst of 200 writes into a few syncs', async () => {
    const t = await start()
    const before = (await idle(t)).completedSyncs
    for (let i = 0; i < 200; i++) t.ws.write(`memory/burst/${i % 20}.md`, `# Burst\nnote ${i} wombat-${i}\n`)
    expect(await searchable(t, 'wombat-199')).toEqual(['memory/burst/19.md'])
    const after = (await idle(t)).completedSyncs
    expect(after - before).toBeGreaterThanOrEqual(1)
    expect(after - before).toBeLessThanOrEqual(4)
    // The index holds the last version of every rewritten file.
    const listed = (await t.app.inject({ method: 'GET', url: '/files' })).json<{
      files: { path: string; sha256: string }[]
    }>()
    const burst = listed.files.filter((f) => f.path.startsWith('memory/burst/'))
    expect(burst).toHaveLength(20)
    for (const f of burst) expect(f.sha256, f.path).toBe(sha256(t.ws.read(f.path)))
  })

  it('drops deleted files and follows renames', async () => {
    const t = await start()
    expect(await paths(t, 'Shinjuku')).toEqual(['memory/travel.md'])
    fs.renameSync(t.ws.abs('memory/travel.md'), t.ws.abs('memory/trips.md'))
    await findsExactly(t, 'Shinjuku', ['memory/trips.md'])
    t.ws.remove('memory/trips.md')
    await findsExactly(t, 'Shinjuku', [])
    const files = (await t.app.inject({ method: 'GET', url: '/files' })).json<{ files: { path: string }[] }>()
    expect(files.files.map((f) => f.path)).not.toContain('memory/travel.md')
    expect(files.files.map((f) => f.path)).not.toContain('memory/trips.md')
  })

  it('syncs at once when a search arrives while changes wait for their debounce', async () => {
    const t = await start({ MNEMO_SYNC_DEBOUNCE_MS: '60000' })
    t.ws.write('memory/urgent.md', '# Urgent\nThe axolotl tank needs cleaning.\n')
    await waitFor(async () => ((await status(t)).dirty ? true : undefined))
    // Far sooner than the 60 s debounce: the search itself starts the sync.
    expect(await searchable(t, 'axolotl', MARGIN_MS)).toEqual(['memory/urgent.md'])
  })

  it('catches changes with the periodic rescan when there is no watcher', async () => {
    const t = await start({ MNEMO_WATCH: 'false', MNEMO_SYNC_RESCAN_MS: '200' })
    expect(await status(t)).toMatchObject({ watching: false })
    t.ws.write('memory/unwatched.md', '# Unwatched\nA pangolin was seen.\n')
    expect(await searchable(t, 'pangolin', 200 + MARGIN_MS)).toEqual(['memory/unwatched.md'])
  })

  it('restarts a watcher that fails, and catches up on what changed meanwhile', async () => {
    let calls = 0
    let fail: ((err: unknown) => void) | undefined
    const flaky: WatcherFactory = async (targets, handlers) => {
      calls++
      if (calls === 1) throw new Error('the watcher could not start')
      fail = handlers.onError
      return watchSources(targets, handlers)
    }
    const t = await start({}, { watcherFactory: flaky })
    expect(await status(t)).toMatchObject({ watching: false })
    t.ws.write('memory/while-down.md', '# Down\nA quetzal flew by.\n')
    await waitFor(async () => ((await status(t)).watching ? true : undefined), 5000)
    expect(await searchable(t, 'quetzal')).toEqual(['memory/while-down.md'])
    fail?.(new Error('the watcher died'))
    expect((await status(t)).watching).toBe(false)
    t.ws.write('memory/after.md', '# After\nA tapir wandered in.\n')
    await waitFor(async () => ((await status(t)).watching ? true : undefined), 5000)
    expect(await searchable(t, 'tapir')).toEqual(['memory/after.md'])
    expect(calls).toBe(3)
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toMatch(/^mnemo_watcher_restarts_total 1$/m)
  })

  it('rescans periodically, and says so, when no inotify watch is left; watches again once there is', async () => {
    let calls = 0
    let full = true
    const starved: WatcherFactory = async (targets, handlers) => {
      calls++
      if (full) {
        throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached, watch /x'), {
          code: 'ENOSPC',
        })
      }
      return watchSources(targets, handlers)
    }
    const t = await start({}, { watcherFactory: starved, watchFallback: { rescanMs: 100, retryMs: 400 } })
    const fallback = (await t.app.inject({ method: 'GET', url: '/index' })).json<{ watch: unknown }>()
    expect(fallback).toMatchObject({
      watching: false,
      watch: {
        state: 'rescanning',
        reason: 'ENOSPC: no inotify watch left (fs.inotify.max_user_watches)',
        rescanEveryMs: 100,
      },
    })
    expect(JSON.stringify(fallback.watch)).not.toContain('/x')
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toMatch(/^mnemo_spaces_rescanning 1$/m)
    expect(metrics).toMatch(/^mnemo_watcher_restarts_total 0$/m)

    // The periodic rescan finds what changed on disk.
    t.ws.write('memory/unwatched.md', '# Unwatched\nA narwhal surfaced.\n')
    expect(await searchable(t, 'narwhal')).toEqual(['memory/unwatched.md'])

    // Once watches are free again, the next retry watches again.
    full = false
    await waitFor(async () => ((await status(t)).watching ? true : undefined), 5000)
    const watching = (await t.app.inject({ method: 'GET', url: '/index' })).json<{ watch: unknown }>()
    expect(watching.watch).toEqual({ state: 'watching' })
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(/^mnemo_spaces_rescanning 0$/m)
    t.ws.write('memory/watched.md', '# Watched\nA dugong swam by.\n')
    expect(await searchable(t, 'dugong')).toEqual(['memory/watched.md'])
    // Retried at the slow pace, never restarted in a loop.
    expect(calls).toBeGreaterThanOrEqual(2)
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(/^mnemo_watcher_restarts_total 0$/m)
  })
})
