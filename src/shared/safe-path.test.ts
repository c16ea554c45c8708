import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkRelPath, isInside, resolveInside } from './safe-path.js'

describe('checkRelPath', () => {
  it.each([
    'MEMORY.md',
    'memory/2026-02-16.md',
    'memory/a b/ç.md',
    'memory/中文.md',
    'memory/..hidden.md',
    'memory/\ud83d\ude00.md',
    'memory/\ufffd.md',
  ])('accepts %j', (p) => {
    expect(checkRelPath(p)).toEqual({ kind: 'ok', rel: p })
  })

  it.each([
    ['', 'empty path'],
    ['../etc/passwd', 'relative segment (. or ..)'],
    ['memory/../../etc/passwd', 'relative segment (. or ..)'],
    ['memory/./a.md', 'relative segment (. or ..)'],
    ['/etc/passwd', 'absolute path'],
    ['C:/Windows/win.ini', 'absolute path'],
    ['memory\\..\\secret.md', 'backslash in path'],
    ['memory/a\u0000.md', 'control character or NUL in path'],
    ['memory/a\n.md', 'control character or NUL in path'],
    ['memory//a.md', 'empty path segment'],
    ['memory/', 'empty path segment'],
    ['x'.repeat(1025), 'path too long'],
    ['memory/\ud800.md', 'not well-formed Unicode (a lone surrogate)'],
    ['memory/\udfff.md', 'not well-formed Unicode (a lone surrogate)'],
    ['memory/a\ud83d.md', 'not well-formed Unicode (a lone surrogate)'],
    ['memory/\ude00\ud83d.md', 'not well-formed Unicode (a lone surrogate)'],
  ])('refuses %j (%s)', (p, reason) => {
    expect(checkRelPath(p)).toEqual({ kind: 'invalid', reason })
  })
})

describe('isInside', () => {
  it.each([
    ['/w', '/w', true],
    ['/w', '/w/a/b', true],
    ['/w', '/w2/a', false],
    ['/w', '/', false],
    ['/w/a', '/w', false],
  ])('isInside(%j, %j) is %j', (root, p, inside) => {
    expect(isInside(root, p)).toBe(inside)
  })
})

describe('resolveInside', () => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-safe-path-')))
  const root = path.join(base, 'ws')
  fs.mkdirSync(path.join(root, 'memory'), { recursive: true })
  fs.writeFileSync(path.join(root, 'memory', 'a.md'), 'a')
  fs.writeFileSync(path.join(base, 'secret.md'), 'secret')
  fs.symlinkSync(path.join(base, 'secret.md'), path.join(root, 'memory', 'out.md'))
  fs.symlinkSync(path.join(root, 'memory', 'a.md'), path.join(root, 'memory', 'in.md'))
  fs.symlinkSync(base, path.join(root, 'memory', 'outdir'))
  fs.symlinkSync(path.join(root, 'memory', 'loop.md'), path.join(root, 'memory', 'loop.md'))
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

  it('resolves a file inside the workspace', async () => {
    expect(await resolveInside(root, 'memory/a.md')).toEqual({ kind: 'ok', abs: path.join(root, 'memory', 'a.md') })
  })

  it('follows a symlink that stays inside', async () => {
    expect(await resolveInside(root, 'memory/in.md')).toEqual({ kind: 'ok', abs: path.join(root, 'memory', 'a.md') })
  })

  it.each(['memory/out.md', 'memory/outdir/secret.md'])('refuses %j, which leaves through a symlink', async (rel) => {
    expect((await resolveInside(root, rel)).kind).toBe('invalid')
  })

  it('reports a missing file as not found and a symlink loop as invalid', async () => {
    expect(await resolveInside(root, 'memory/missing.md')).toEqual({ kind: 'not-found' })
    expect((await resolveInside(root, 'memory/loop.md')).kind).toBe('invalid')
  })
})
