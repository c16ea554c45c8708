import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { dimsKey, readRememberedDims, REMEMBERED_DIMS_FILE, rememberDims } from './remembered-dims.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-dims-'))
  dirs.push(dir)
  return dir
}

describe('remembered embedding dimensions', () => {
  it('are kept per endpoint and model, never with the credentials of a URL', () => {
    expect(dimsKey('http://user:pw@ollama:11434/v1/', 'nomic-embed-text:v1.5')).toBe(
      'http://ollama:11434/v1/embeddings nomic-embed-text:v1.5',
    )
  })

  it('are read back, several models side by side', () => {
    const dir = tempDir()
    rememberDims(dir, 'a m1', 768)
    rememberDims(dir, 'a m2', 1024)
    rememberDims(dir, 'a m1', 512)
    expect(readRememberedDims(dir, 'a m1')).toBe(512)
    expect(readRememberedDims(dir, 'a m2')).toBe(1024)
    expect(readRememberedDims(dir, 'b m1')).toBeUndefined()
  })

  it.each([['{"a m1": 7'], ['[1, 2]'], ['{"a m1": "768"}'], ['{"a m1": -3}']])(
    'are nothing when the file is torn or holds %s',
    (text) => {
      const dir = tempDir()
      fs.writeFileSync(path.join(dir, REMEMBERED_DIMS_FILE), text)
      expect(readRememberedDims(dir, 'a m1')).toBeUndefined()
      rememberDims(dir, 'a m1', 768)
      expect(readRememberedDims(dir, 'a m1')).toBe(768)
    },
  )

  it('are nothing without a file', () => {
    expect(readRememberedDims(tempDir(), 'a m1')).toBeUndefined()
  })
})
