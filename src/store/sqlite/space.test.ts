import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createIndexStore } from './index-store.js'
import { createSqliteSpace, rebuildPath } from './space.js'
import { keywordSqliteEngine } from '../../../test/helpers/sqlite-engine.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

describe('a SQLite space', () => {
  it('leaves no temp file when opening the rebuild index fails after creating it (a full disk)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-space-'))
    dirs.push(dir)
    const store = createIndexStore({ dbPath: path.join(dir, 'index.sqlite') })
    const space = createSqliteSpace({
      key: { kind: 'agent', id: 'main' },
      store,
      openScratch: (p) => {
        fs.writeFileSync(p, '')
        throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
      },
      created: true,
      staleRebuild: false,
    })
    expect(() => space.beginRebuild()).toThrow('database or disk is full')
    expect(fs.existsSync(rebuildPath(store.dbPath))).toBe(false)
    expect(store.isOpen()).toBe(true)
    store.close()
  })

  it('deletes the temp file of a rebuild that was cut off when the space opens again', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-space-'))
    dirs.push(dir)
    const engine = keywordSqliteEngine(dir)
    const first = engine.openSpace({ kind: 'agent', id: 'main' })
    await first.beginRebuild()
    await first.close()
    expect(fs.existsSync(rebuildPath(first.dbPath))).toBe(true)
    const again = engine.openSpace({ kind: 'agent', id: 'main' })
    expect(again.repaired.staleRebuild).toBe(true)
    expect(fs.existsSync(rebuildPath(again.dbPath))).toBe(false)
    await again.close()
  })
})
