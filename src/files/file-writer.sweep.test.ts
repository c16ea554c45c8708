import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createKeyedMutex } from '../shared/keyed-mutex.js'
import { removeStaleTempFiles, tempTarget } from './file-writer.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function tree(): { root: string; outside: string; write: (rel: string) => void; exists: (rel: string) => boolean } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-sweep-')))
  dirs.push(base)
  const root = path.join(base, 'workspace')
  const outside = path.join(base, 'outside')
  const abs = (rel: string) => path.join(base, ...rel.split('/'))
  return {
    root,
    outside,
    write: (rel) => {
      fs.mkdirSync(path.dirname(abs(rel)), { recursive: true })
      fs.writeFileSync(abs(rel), 'x')
    },
    exists: (rel) => fs.existsSync(abs(rel)),
  }
}

const TEMP = '.a.md.0123456789ab.mnemo-tmp'
const noLock = async (_rel: string, fn: () => Promise<void>) => fn()

describe('removeStaleTempFiles', () => {
  it.each([
    [TEMP, 'a.md'],
    ['.MEMORY.md.abcdef012345.mnemo-tmp', 'MEMORY.md'],
    ['.a.md.mnemo-tmp', null],
    ['a.md.0123456789ab.mnemo-tmp', null],
    ['.a.md.0123456789AB.mnemo-tmp', null],
  ])('reads %s as the temp file of %s', (name, target) => {
    expect(tempTarget(name)).toBe(target)
  })

  it('deletes temp files in the folder and below, and nothing else', async () => {
    const t = tree()
    for (const rel of [`workspace/${TEMP}`, `workspace/memory/${TEMP}`, `workspace/memory/sub/${TEMP}`]) t.write(rel)
    for (const rel of ['workspace/memory/.a.md.swp', 'workspace/memory/a.md', 'workspace/memory/.a.md.mnemo-tmp']) {
      t.write(rel)
    }
    expect(await removeStaleTempFiles(t.root, '', false, noLock)).toBe(1)
    expect(await removeStaleTempFiles(t.root, 'memory', true, noLock)).toBe(2)
    expect(t.exists(`workspace/${TEMP}`) || t.exists(`workspace/memory/sub/${TEMP}`)).toBe(false)
    expect(['workspace/memory/.a.md.swp', 'workspace/memory/a.md'].every(t.exists)).toBe(true)
  })

  it('never follows a symlinked folder out of the workspace', async () => {
    const t = tree()
    t.write(`outside/${TEMP}`)
    t.write(`outside/deep/${TEMP}`)
    fs.mkdirSync(path.join(t.root, 'memory'), { recursive: true })
    fs.symlinkSync(t.outside, path.join(t.root, 'memory', 'link'))
    fs.symlinkSync(t.outside, path.join(t.root, 'notes'))
    expect(await removeStaleTempFiles(t.root, 'memory', true, noLock)).toBe(0)
    expect(await removeStaleTempFiles(t.root, 'notes', true, noLock)).toBe(0)
    expect(t.exists(`outside/${TEMP}`) && t.exists(`outside/deep/${TEMP}`)).toBe(true)
  })

  it('waits for the write that owns a temp file, and leaves it to that write', async () => {
    const t = tree()
    t.write(`workspace/memory/${TEMP}`)
    const locks = createKeyedMutex()
    let release!: () => void
    const writing = locks.run('memory/a.md', () => new Promise<void>((resolve) => (release = resolve)))
    // The sweep found the temp file and waits for its write's lock: no sleep, the lock call says so.
    let asked!: () => void
    const askedForLock = new Promise<void>((resolve) => (asked = resolve))
    const sweep = removeStaleTempFiles(t.root, 'memory', true, (rel, fn) => {
      asked()
      return locks.run(rel, fn)
    })
    await askedForLock
    expect(t.exists(`workspace/memory/${TEMP}`)).toBe(true)
    // The write renames its temp file over the target, then lets go of the lock.
    fs.renameSync(path.join(t.root, 'memory', TEMP), path.join(t.root, 'memory', 'a.md'))
    release()
    await writing
    expect(await sweep).toBe(0)
    expect(t.exists('workspace/memory/a.md')).toBe(true)
  })
})
