import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { folderReplaced, holdRoot, isFolderReplaced } from './held-root.js'

let base: string
let root: string
beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-held-root-')))
  root = path.join(base, 'a')
  fs.mkdirSync(root)
  fs.writeFileSync(path.join(root, 'MEMORY.md'), 'a\n')
  fs.mkdirSync(path.join(base, 'b'))
  fs.writeFileSync(path.join(base, 'b', 'MEMORY.md'), 'b\n')
})
afterEach(() => fs.rmSync(base, { recursive: true, force: true }))

const identity = (p: string) => {
  const st = fs.lstatSync(p, { bigint: true })
  return { dev: st.dev, ino: st.ino }
}

describe('holdRoot', () => {
  it('keeps reaching the folder it opened, and refuses the path once something else is there', async () => {
    let replacedCalls = 0
    const held = holdRoot(root, { what: 'agent folder', onReplaced: () => replacedCalls++ })
    try {
      await held.check()
      fs.renameSync(root, `${root}.old`)
      fs.symlinkSync(path.join(base, 'b'), root)
      // What the held folder names is still a's file, wherever a went.
      expect(fs.readFileSync(path.join(held.dir, 'MEMORY.md'), 'utf8')).toBe('a\n')
      for (let i = 0; i < 2; i++) {
        const err = await held.check().then(
          () => null,
          (e: unknown) => e,
        )
        expect(isFolderReplaced(err)).toBe(true)
        expect(err).toMatchObject({ code: 'PATH_CHANGED', message: expect.stringContaining('agent folder') })
      }
      expect(held.replaced()).toBe(true)
      expect(replacedCalls).toBe(1)
      // Another folder renamed into place is refused as well; the original put back is accepted.
      fs.unlinkSync(root)
      fs.renameSync(path.join(base, 'b'), root)
      await expect(held.check()).rejects.toMatchObject({ code: 'PATH_CHANGED' })
      fs.renameSync(root, path.join(base, 'b'))
      fs.renameSync(`${root}.old`, root)
      await held.check()
      expect(held.replaced()).toBe(false)
      // A removed folder is refused too.
      fs.renameSync(root, `${root}.gone`)
      await expect(held.check()).rejects.toMatchObject({ code: 'PATH_CHANGED' })
      expect(replacedCalls).toBe(2)
    } finally {
      held.close()
    }
  })

  it('refuses to hold a symlink, or a folder other than the one it was told to expect', () => {
    fs.symlinkSync(path.join(base, 'b'), path.join(base, 'link'))
    expect(() => holdRoot(path.join(base, 'link'), { what: 'agent folder' })).toThrow(/replaced after it was opened/)
    expect(() => holdRoot(root, { what: 'agent folder', expect: identity(path.join(base, 'b')) })).toThrow(
      /replaced after it was opened/,
    )
    expect(() => holdRoot(path.join(base, 'missing'), { what: 'agent folder', expect: identity(root) })).toThrow(
      /replaced after it was opened/,
    )
    const held = holdRoot(root, { what: 'agent folder', expect: identity(root) })
    held.close()
  })

  it('tells its own refusal from other errors', () => {
    expect(isFolderReplaced(folderReplaced('team folder'))).toBe(true)
    expect(isFolderReplaced(new Error('PATH_CHANGED'))).toBe(false)
  })
})
