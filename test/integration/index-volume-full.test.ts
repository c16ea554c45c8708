/**
 * A full index volume (issue 16, item 7): MNEMO_DATA_DIR on a small tmpfs of its own, the
 * workspace elsewhere. Indexing that runs out of room answers 507 STORAGE_FULL (never a
 * 500), writes still land on disk, and once files are deleted the index recovers without
 * a restart. Needs root to mount the tmpfs (as the suite runs in CI); skipped otherwise.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'
import { waitFor } from '../helpers/wait-for.js'

const canMount = (() => {
  if (process.getuid?.() !== 0) return false
  const probe = fs.mkdtempSync('/tmp/mnemo-mount-probe-')
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' })
    execFileSync('umount', [probe], { stdio: 'ignore' })
    return true
  } catch {
    return false
  } finally {
    fs.rmSync(probe, { recursive: true, force: true })
  }
})()

let t: TestApp | undefined
let mounted: string | undefined
afterEach(async () => {
  await t?.close().catch(() => undefined)
  if (mounted) execFileSync('umount', [mounted], { stdio: 'ignore' })
  t = undefined
  mounted = undefined
})

/** A day file of `notes` distinct notes (about 120 bytes of index each). */
const dayFile = (day: number, notes: number) =>
  Array.from(
    { length: notes },
    (_, i) => `- note ${i} of day ${day}: the wombat${day}x${i} ledger kestrel${i} harbour${day} ${i * 7919} tally`,
  ).join('\n') + '\n'

describe.skipIf(!canMount)('a full index volume', () => {
  it.each([
    ['through the API', 'api'],
    // A sync once wrote the files it found new before it dropped the vanished ones, so it
    // was refused (507) before it reached them, for good.
    ['on disk', 'disk'],
  ] as const)(
    'answers 507 STORAGE_FULL, keeps every write on disk, and recovers once files are deleted %s',
    async (_, how) => {
      const ws = createTempWorkspace()
      fs.mkdirSync(ws.dataDir)
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', ws.dataDir])
      mounted = ws.dataDir
      t = await buildTestApp({ ws })

      // Fill the index volume through the write API until indexing fails for want of room,
      // and a sync too: a search worker's checkpoint may free some of the log between the
      // two, and the sync then indexes what the write could not (write again, then).
      let day = 0
      let refused = false
      let sync: Awaited<ReturnType<typeof t.app.inject>> | undefined
      while (day < 400 && sync?.statusCode !== 507) {
        day++
        const res = await t.app.inject({
          method: 'PUT',
          url: `/files/memory/day-${day}.md`,
          headers: { 'content-type': 'text/markdown' },
          payload: dayFile(day, 200),
        })
        // The file itself is on the workspace volume: written whatever the index can hold.
        expect(res.statusCode).toBe(201)
        if (res.json<{ indexed: boolean }>().indexed) continue
        refused = true
        sync = await t.app.inject({ method: 'POST', url: '/index?wait=true', payload: {} })
      }
      expect(refused).toBe(true)
      for (let d = 1; d <= day; d++) expect(ws.read(`memory/day-${d}.md`)).toBe(dayFile(d, 200))

      if (!sync) throw new Error('no sync ran')
      expect(sync.statusCode).toBe(507)
      expect(sync.json()).toMatchObject({ code: 'STORAGE_FULL' })
      expect(sync.body).not.toContain(ws.dataDir)

      // Deleting half the files frees room in the index: the next sync indexes the rest.
      for (let d = 1; d <= day; d += 2) {
        if (how === 'disk') {
          fs.rmSync(path.join(ws.root, `memory/day-${d}.md`))
          continue
        }
        const del = await t.app.inject({ method: 'DELETE', url: `/files/memory/day-${d}.md` })
        expect(del.statusCode).toBe(200)
      }
      // The deletes themselves went through the write-ahead log on the full volume: until a
      // search worker's checkpoint moves them into the database file and the log restarts,
      // syncs after them may still find no room (three in a row did, on a loaded machine; 15 s
      // of them once, in a full run on a slow hour). Recovery without a restart is the
      // promise: a later sync must succeed.
      const app = t
      const again = await waitFor(async () => {
        const res = await app.app.inject({ method: 'POST', url: '/index?wait=true', payload: {} })
        return res.statusCode === 507 ? undefined : res
      }, 40_000)
      expect(again.statusCode).toBe(200)
      const last = day % 2 === 0 ? day : day - 1
      const found = await t.search({ query: `wombat${last}x3`, mode: 'keyword' })
      expect(found.body.results.map((r) => r.path)).toEqual([`memory/day-${last}.md`])
      const ready = await t.app.inject({ method: 'GET', url: '/ready' })
      expect(ready.statusCode).toBe(200)
      expect(fs.readdirSync(ws.dataDir).filter((f) => f.endsWith('.rebuild'))).toEqual([])
      expect(path.isAbsolute(ws.dataDir)).toBe(true)
    },
    60_000,
  )
})
