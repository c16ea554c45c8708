import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { createForeground } from '../shared/foreground.js'
import { createRebuilder, rebuildPath } from './rebuild.js'
import { emptySyncResult } from './sync-result.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

describe('rebuild', () => {
  it('leaves no temp file when opening the new index fails after creating it (a full disk)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-rebuild-'))
    dirs.push(dir)
    const dbPath = path.join(dir, 'index.sqlite')
    const swaps: unknown[] = []
    const rebuilder = createRebuilder({
      live: {
        dbPath,
        replaceWith: (next) => void swaps.push(next),
        settled: async () => undefined,
        isSettled: () => true,
      },
      openIndex: (p) => {
        fs.writeFileSync(p, '')
        throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
      },
      indexer: { sync: async () => emptySyncResult(true, 'test') },
      targets: { add: () => undefined, remove: () => undefined },
      identity: () => 'x',
      readers: { suspend: async () => undefined, resume: () => undefined },
      foreground: createForeground(),
      log: pino({ level: 'silent' }),
    })
    await expect(rebuilder.rebuild('test', new AbortController().signal)).rejects.toMatchObject({
      code: 'SQLITE_FULL',
    })
    expect(fs.existsSync(rebuildPath(dbPath))).toBe(false)
    expect(swaps).toEqual([])
  })
})
