import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { createWalBacklog, type WalBacklog } from './wal-backlog.js'
import { checkpointWal } from './wal-checkpoint.js'

const dirs: string[] = []
const backlogs: (WalBacklog & { dbPath: string })[] = []
afterEach(() => {
  for (const b of backlogs.splice(0)) b.close()
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

/** The backlog of `dbPath` as the index's writer reads it, after each commit. */
function walBacklogBytes(dbPath: string): number {
  let b = backlogs.find((x) => x.dbPath === dbPath)
  if (!b) backlogs.push((b = Object.assign(createWalBacklog(dbPath), { dbPath })))
  return b.bytes()
}

/** A writer in WAL mode that never checkpoints by itself, like the index's. */
function writer(pageSize = 4096) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-wal-backlog-'))
  dirs.push(dir)
  const dbPath = path.join(dir, 'index.sqlite')
  const db = new Database(dbPath)
  db.pragma(`page_size = ${pageSize}`)
  db.pragma('journal_mode = WAL')
  db.pragma('wal_autocheckpoint = 0')
  db.exec('CREATE TABLE t (x TEXT)')
  const insert = db.prepare('INSERT INTO t VALUES (?)')
  const commit = (rows: number) =>
    db.transaction(() => {
      for (let i = 0; i < rows; i++) insert.run('x'.repeat(1000))
    })()
  return { db, dbPath, commit }
}

describe('walBacklogBytes', () => {
  it('is 0 for an index with no log yet', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-wal-backlog-'))
    dirs.push(dir)
    expect(walBacklogBytes(path.join(dir, 'none.sqlite'))).toBe(0)
  })

  it.each([4096, 65536])('counts what commits add and a checkpoint copies (pages of %i bytes)', (pageSize) => {
    const w = writer(pageSize)
    const before = walBacklogBytes(w.dbPath) ?? -1
    w.commit(200)
    const after = walBacklogBytes(w.dbPath) ?? -1
    // 200 rows of 1 KB: at least 200 KB of pages, each with its frame header.
    expect(after - before).toBeGreaterThanOrEqual(200_000)
    expect(after).toBeLessThanOrEqual(fs.statSync(`${w.dbPath}-wal`).size)
    checkpointWal(w.dbPath)
    expect(walBacklogBytes(w.dbPath)).toBe(0)
    w.db.close()
  })

  it('stays small once the log is written over from its start, where the file keeps its size', () => {
    const w = writer()
    w.commit(2000)
    const fileBytes = fs.statSync(`${w.dbPath}-wal`).size
    checkpointWal(w.dbPath)
    w.commit(1)
    // The file is as big as ever; what is not yet checkpointed is a page or two.
    expect(fs.statSync(`${w.dbPath}-wal`).size).toBe(fileBytes)
    expect(walBacklogBytes(w.dbPath)).toBeGreaterThan(0)
    expect(walBacklogBytes(w.dbPath)).toBeLessThan(5 * (4096 + 24))
    w.db.close()
  })

  it("falls back to the log file's size for a wal-index of another format", () => {
    const w = writer()
    w.commit(1)
    w.db.close()
    fs.writeFileSync(`${w.dbPath}-wal`, Buffer.alloc(5000))
    fs.writeFileSync(`${w.dbPath}-shm`, Buffer.alloc(200, 7))
    expect(walBacklogBytes(w.dbPath)).toBe(5000)
  })

  it.each([
    ['missing', null],
    ['truncated', Buffer.alloc(40)],
    ['empty', Buffer.alloc(0)],
  ])("falls back to the log file's size for a wal-index %s beside a log", (_what, shm) => {
    const w = writer()
    w.commit(1)
    w.db.close()
    fs.writeFileSync(`${w.dbPath}-wal`, Buffer.alloc(5000))
    if (shm) fs.writeFileSync(`${w.dbPath}-shm`, shm)
    else fs.rmSync(`${w.dbPath}-shm`, { force: true })
    // Reading 0 would never ask for a checkpoint, and the log would grow without bound.
    expect(walBacklogBytes(w.dbPath)).toBe(5000)
  })

  // Linux lists every POSIX lock in /proc/locks: `<n>: POSIX ADVISORY READ <pid> <dev>:<inode> <from> <to>`.
  it.runIf(fs.existsSync('/proc/locks'))(
    "keeps the writer's lock on the wal-index, which tells other processes it is in use",
    () => {
      const w = writer()
      w.commit(10)
      const inode = fs.statSync(`${w.dbPath}-shm`).ino
      // SQLite's "in use" lock: a read lock on byte 128 of the wal-index (the DMS byte). Were
      // it dropped, another process opening the index (the sqlite3 shell, a backup) would
      // find the wal-index unused and cut it to 3 bytes under the writer.
      const held = () =>
        fs
          .readFileSync('/proc/locks', 'utf8')
          .split('\n')
          .some((line) => {
            const f = line.trim().split(/\s+/)
            return f[1] === 'POSIX' && f[4] === String(process.pid) && f[5]?.endsWith(`:${inode}`) && f[6] === '128'
          })
      expect(held()).toBe(true)
      for (let i = 0; i < 3; i++) walBacklogBytes(w.dbPath)
      expect(held()).toBe(true)
      w.db.close()
    },
  )
})
