/**
 * One process per data dir (SPEC §7). Two mnemo processes on one MNEMO_DATA_DIR would both
 * sync into the same index files (SQLITE_BUSY, /ready stuck at 503), so start-up takes a
 * lock: a POSIX advisory lock on `mnemo.lock`, taken and held through SQLite (exclusive
 * locking mode on a connection kept open for the life of the process). The kernel drops
 * it when the process ends however it ends (SIGKILL, OOM kill), so a restart never needs
 * a manual cleanup. Who holds it (pid, host, since when) is written beside it, in
 * `mnemo.lock.json`, for the message a second process exits with.
 */
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { ConfigError } from '../shared/config-error.js'
import { publicErrorMessage } from '../shared/public-error.js'
import { ensureDataDir } from './data-dir.js'

export const LOCK_FILE = 'mnemo.lock'
export const HOLDER_FILE = 'mnemo.lock.json'

export type LockHolder = { pid: number; host: string; since: string }

/** Connections holding a lock: referenced here so the garbage collector never closes one. */
const held = new Set<Database.Database>()

/** The holder named in the data dir, or null when it is missing or unreadable. */
export function readLockHolder(dataDir: string): LockHolder | null {
  try {
    const holder = JSON.parse(fs.readFileSync(path.join(dataDir, HOLDER_FILE), 'utf8')) as Partial<LockHolder>
    if (typeof holder.pid !== 'number' || typeof holder.host !== 'string' || typeof holder.since !== 'string') {
      return null
    }
    return { pid: holder.pid, host: holder.host, since: holder.since }
  } catch {
    return null
  }
}

/** The start-up error of a second process. */
function lockedError(dataDir: string, cause: unknown): Error {
  const holder = readLockHolder(dataDir)
  const who = holder
    ? `pid ${holder.pid} on host ${holder.host}, since ${holder.since}`
    : 'its details are not written yet'
  return new ConfigError(
    `MNEMO_DATA_DIR: ${dataDir} is in use by another mnemo process (${who}); ` +
      'one process per data dir: stop that one, or give this one another MNEMO_DATA_DIR',
    { cause },
  )
}

/**
 * Takes the data dir's lock for this process, or throws a ConfigError naming the
 * holder. release() gives it up (shutdown); a process that dies gives it up anyway.
 */
export function lockDataDir(dataDir: string, holder: LockHolder): { release(): void } {
  ensureDataDir(dataDir)
  const db = new Database(path.join(dataDir, LOCK_FILE), { timeout: 0 })
  try {
    // Exclusive locking mode keeps every lock once taken, until the connection closes;
    // the journal of this empty database needs no file.
    db.pragma('locking_mode = EXCLUSIVE')
    db.pragma('journal_mode = MEMORY')
    db.exec('BEGIN EXCLUSIVE; COMMIT')
  } catch (err) {
    db.close()
    if ((err as { code?: unknown }).code === 'SQLITE_BUSY') throw lockedError(dataDir, err)
    throw new ConfigError(`MNEMO_DATA_DIR: cannot lock ${path.join(dataDir, LOCK_FILE)} (${publicErrorMessage(err)})`, {
      cause: err,
    })
  }
  held.add(db)
  const holderPath = path.join(dataDir, HOLDER_FILE)
  const temp = `${holderPath}.${holder.pid}.tmp`
  fs.writeFileSync(temp, `${JSON.stringify(holder)}\n`)
  fs.renameSync(temp, holderPath)
  return {
    release(): void {
      if (!held.delete(db)) return
      // The holder file goes first: once the lock is free, the next holder writes its own.
      fs.rmSync(holderPath, { force: true })
      db.close()
    },
  }
}
