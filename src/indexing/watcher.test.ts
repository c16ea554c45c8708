import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { inotifyWatches } from '../../test/helpers/proc-handles.js'
import { isOutsideSources, watchSources, watchSourcesWith, type Watcher } from './watcher.js'

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 10))
  expect(check()).toBe(true)
}

let root: string
let watcher: Watcher | null = null
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-watcher-')))
})
afterEach(async () => {
  await watcher?.close()
  watcher = null
  fs.rmSync(root, { recursive: true, force: true })
})

/** Watches the workspace's memory sources; the list fills with every change (and error) reported. */
async function watchMemory(): Promise<string[]> {
  const changed: string[] = []
  watcher = await watchSources(
    { root, scanRoots: ['MEMORY.md', 'memory'], sessions: null },
    { onChange: (p) => changed.push(p), onError: (err) => changed.push(`error ${String(err)}`) },
  )
  return changed
}

describe('watchSources', () => {
  it.skipIf(!fs.existsSync('/proc/self/fd'))(
    'watches source folders only, one watch each, however many files they hold',
    async () => {
      fs.mkdirSync(path.join(root, 'memory/projects'), { recursive: true })
      fs.mkdirSync(path.join(root, 'src/deep'), { recursive: true })
      fs.mkdirSync(path.join(root, 'memory/.obsidian'))
      for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(root, `memory/2026-01-${i}.md`), 'x\n')
      const before = inotifyWatches()
      const changed = await watchMemory()
      // The root, memory/ and memory/projects/: not src/, not the hidden folder, no file.
      expect(inotifyWatches() - before).toBe(3)

      fs.appendFileSync(path.join(root, 'memory/2026-01-3.md'), 'more\n')
      await until(() => changed.includes(path.join(root, 'memory/2026-01-3.md')))
      fs.mkdirSync(path.join(root, 'memory/new'))
      await until(() => inotifyWatches() - before === 4)
      fs.writeFileSync(path.join(root, 'memory/new/a.md'), 'a\n')
      await until(() => changed.includes(path.join(root, 'memory/new/a.md')))
      fs.rmSync(path.join(root, 'memory/new'), { recursive: true })
      await until(() => inotifyWatches() - before === 3)
      fs.writeFileSync(path.join(root, 'src/deep/code.ts'), 'x\n')
      fs.writeFileSync(path.join(root, 'memory/.tmp.md'), 'x\n')
      fs.writeFileSync(path.join(root, 'MEMORY.md'), 'x\n')
      await until(() => changed.includes(path.join(root, 'MEMORY.md')))
      expect(changed.filter((p) => p.includes('src') || p.includes('.tmp') || p.startsWith('error'))).toEqual([])
    },
  )
})

describe('watchSources on appends', () => {
  it('reports each append without looking at the file: only an entry that came or went may be a folder', async () => {
    const day = path.join(root, 'memory/2026-01-01.md')
    fs.mkdirSync(path.dirname(day))
    fs.writeFileSync(day, 'first\n')
    const looked: string[] = []
    const changed: string[] = []
    const io = { lstat: (abs: string) => (looked.push(abs), fs.promises.lstat(abs)) }
    watcher = await watchSourcesWith(
      io,
      { root, scanRoots: ['MEMORY.md', 'memory'], sessions: null },
      { onChange: (p) => changed.push(p), onError: (err) => changed.push(`error ${String(err)}`) },
    )
    for (let i = 0; i < 20; i++) {
      fs.appendFileSync(day, `line ${i}\n`)
      await new Promise((r) => setImmediate(r))
    }
    await until(() => changed.includes(day))
    fs.mkdirSync(path.join(root, 'memory/projects'))
    await until(() => looked.includes(path.join(root, 'memory/projects')))
    expect(looked).not.toContain(day)
    expect(changed.filter((p) => p.startsWith('error'))).toEqual([])
  })
})

describe('watchSources under a storm of renames', () => {
  it.skipIf(!fs.existsSync('/proc/self/fd'))(
    'ends watching the folder that is in place once a folder swapped with a symlink thousands of times settles',
    async () => {
      const memory = path.join(root, 'memory')
      fs.mkdirSync(path.join(memory, 'sub'), { recursive: true })
      fs.mkdirSync(path.join(root, 'elsewhere'))
      fs.symlinkSync(path.join(root, 'elsewhere'), path.join(memory, 'sub.link'))
      const before = inotifyWatches()
      const changed = await watchMemory()
      expect(inotifyWatches() - before).toBe(3)
      const move = (from: string, to: string) => fs.renameSync(path.join(memory, from), path.join(memory, to))
      for (let round = 0; round < 3; round++) {
        // Each step lands in the watcher's event queue before the previous step's lstat answers.
        for (let i = 0; i < 500; i++) {
          move('sub', 'sub.real')
          move('sub.link', 'sub')
          move('sub', 'sub.link')
          move('sub.real', 'sub')
        }
        await new Promise((r) => setImmediate(r))
      }
      // The real folder is back in place: watched again (root, memory, memory/sub), the symlink not entered.
      await until(() => inotifyWatches() - before === 3)
      fs.writeFileSync(path.join(memory, 'sub/after.md'), 'x\n')
      await until(() => changed.includes(path.join(memory, 'sub/after.md')))
      expect(changed).toContain(path.join(memory, 'sub/after.md'))
      expect(inotifyWatches() - before).toBe(3)
      expect(changed.filter((p) => p.startsWith('error') || p.includes('elsewhere'))).toEqual([])
    },
  )
})

describe('isOutsideSources', () => {
  it.each([
    ['', false],
    ['memory', false],
    ['memory/a/b.md', false],
    ['MEMORY.md', false],
    ['notes', true],
    ['memory/.hidden/a.md', true],
    ['src/memory', true],
  ])('%j is outside: %j', (rel, outside) => {
    expect(isOutsideSources(rel, ['MEMORY.md', 'memory'])).toBe(outside)
  })
})
