import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { withWriteTarget } from './file-writer.js'
import { makeFolder, openFolder, type MakeFolder } from './workspace-fs.js'

let base: string
let root: string
beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-workspace-fs-')))
  root = path.join(base, 'a')
  fs.mkdirSync(root)
})
afterEach(() => fs.rmSync(base, { recursive: true, force: true }))

/**
 * A MakeFolder that, just before creating, renames another folder over the open (empty)
 * root, as a thread swapping folders does: the folder the request opened is removed.
 */
function replacingRootThenMaking(other: string): MakeFolder {
  return async (child) => {
    fs.renameSync(other, root)
    await makeFolder(child)
  }
}

describe('openFolder while the open folder is removed', () => {
  it('answers not-found, not an error, when a folder renamed over the open one removed it before mkdir', async () => {
    const other = path.join(base, 'other')
    fs.mkdirSync(other)
    fs.writeFileSync(path.join(other, 'MEMORY.md'), 'other\n')

    const opened = await openFolder(root, 'memory', replacingRootThenMaking(other))

    expect(opened).toEqual({ kind: 'not-found' })
    // Nothing was made in the folder now at that path.
    expect(fs.readdirSync(root)).toEqual(['MEMORY.md'])
  })

  it('makes a write refuse with 409 PATH_CHANGED and never run', async () => {
    const other = path.join(base, 'other')
    fs.mkdirSync(other)
    let ran = false

    const write = withWriteTarget(root, 'memory/x.md', replacingRootThenMaking(other), async () => {
      ran = true
    })

    await expect(write).rejects.toMatchObject({ code: 'PATH_CHANGED', statusCode: 409 })
    expect(ran).toBe(false)
    expect(fs.readdirSync(root)).toEqual([])
  })

  it('still creates the missing folder when nothing moves', async () => {
    const opened = await openFolder(root, 'memory/deep', true)
    expect(opened.kind).toBe('ok')
    if (opened.kind === 'ok') await opened.folder.close()
    expect(fs.statSync(path.join(root, 'memory', 'deep')).isDirectory()).toBe(true)
  })
})
