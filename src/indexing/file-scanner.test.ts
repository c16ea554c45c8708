import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createMemoryPaths } from '../files/memory-paths.js'
import { scanSources, type SourceRoots } from './file-scanner.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

/**
 * A workspace holding `files` (paths relative to it), each with its own path as content;
 * every third one in `memory/` a link to such a file outside the sources, whose stat takes
 * one more await (its real path first) and so ends after those of files listed after it.
 */
function workspace(files: readonly string[]): SourceRoots {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-scan-'))
  dirs.push(dir)
  fs.mkdirSync(path.join(dir, 'targets'))
  files.forEach((rel, i) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    if (i % 3 !== 0 || !rel.startsWith('memory/')) return fs.writeFileSync(path.join(dir, rel), rel)
    const target = path.join(dir, 'targets', `${i}.md`)
    fs.writeFileSync(target, rel)
    fs.symlinkSync(target, path.join(dir, rel))
  })
  return { workspace: dir, sessions: null, paths: createMemoryPaths({ extraPaths: [] }) }
}

const names = (n: number, dir: string) => Array.from({ length: n }, (_, i) => `${dir}/${String(i).padStart(3, '0')}.md`)

describe('a scan of the sources', () => {
  it('lists a folder of many files in name order, each subfolder where its name falls, whatever order the stats end in', async () => {
    // More files than are statted at once, before and after a subfolder, and a dot file skipped.
    const expected = ['MEMORY.md', ...names(40, 'memory'), ...names(20, 'memory/m-sub'), ...names(3, 'memory/z')]
    const roots = workspace([...expected, 'memory/.hidden.md'])
    const scanned = await scanSources(roots, () => undefined)
    expect(scanned.map((file) => file.rel)).toEqual(expected)
    expect(scanned.map((file) => file.sizeBytes)).toEqual(expected.map((rel) => Buffer.byteLength(rel)))
  })

  it('stops with the reason of its signal, between two of its stats', async () => {
    const roots = workspace(names(40, 'memory'))
    const controller = new AbortController()
    let statted = 0
    const reason = new Error('shutting down')
    const isSource = (rel: string) => {
      if (++statted === 5) controller.abort(reason)
      return roots.paths.isSource(rel)
    }
    const scan = scanSources({ ...roots, paths: { ...roots.paths, isSource } }, () => undefined, controller.signal)
    await expect(scan).rejects.toBe(reason)
    expect(statted).toBeLessThan(40)
  })
})
