import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { HOLDER_FILE, lockDataDir, readLockHolder } from './data-dir-lock.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-lock-'))
  dirs.push(dir)
  return path.join(dir, 'data')
}
const first = { pid: 101, host: 'host-a', since: '2026-03-01T10:00:00.000Z' }
const second = { pid: 202, host: 'host-b', since: '2026-03-01T11:00:00.000Z' }

// SQLite keeps track of its locks per file within a process, so a second connection here
// is refused as a second process would be (main.smoke.test.ts runs two real processes).
describe('lockDataDir', () => {
  it('creates the data dir, takes the lock and names its holder', () => {
    const dataDir = tempDir()
    const lock = lockDataDir(dataDir, first)
    expect(readLockHolder(dataDir)).toEqual(first)
    lock.release()
  })

  it('refuses a second holder, naming the first: pid, host and since when', () => {
    const dataDir = tempDir()
    const lock = lockDataDir(dataDir, first)
    let err: (Error & { code?: string }) | undefined
    try {
      lockDataDir(dataDir, second)
    } catch (e) {
      err = e as Error & { code?: string }
    }
    expect(err?.code).toBe('CONFIG_INVALID')
    expect(err?.message).toBe(
      `MNEMO_DATA_DIR: ${dataDir} is in use by another mnemo process (pid 101 on host host-a, since ` +
        '2026-03-01T10:00:00.000Z); one process per data dir: stop that one, or give this one another MNEMO_DATA_DIR',
    )
    // The refused process did not overwrite the holder.
    expect(readLockHolder(dataDir)).toEqual(first)
    lock.release()
  })

  it('is free again once released, and the next holder is named', () => {
    const dataDir = tempDir()
    lockDataDir(dataDir, first).release()
    expect(fs.existsSync(path.join(dataDir, HOLDER_FILE))).toBe(false)
    const lock = lockDataDir(dataDir, second)
    expect(readLockHolder(dataDir)).toEqual(second)
    lock.release()
    lock.release()
  })

  it('says so when the holder file is missing or torn', () => {
    const dataDir = tempDir()
    const lock = lockDataDir(dataDir, first)
    fs.writeFileSync(path.join(dataDir, HOLDER_FILE), '{"pid":')
    expect(() => lockDataDir(dataDir, second)).toThrow(
      /in use by another mnemo process \(its details are not written yet\)/,
    )
    lock.release()
  })
})
