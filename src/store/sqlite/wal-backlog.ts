/**
 * How much of an index's write-ahead log is not yet checkpointed, read from the header of
 * its wal-index (the `-shm` file every connection maps; https://www.sqlite.org/walformat.html
 * §2.1): `mxFrame` frames are in the log, the first `nBackfill` of them copied into the
 * database. The log file's size cannot tell: SQLite writes the log over from its start once
 * it was checkpointed, and cuts the file back only to journal_size_limit, so a log that once
 * reached the limit stays that size, and a check of its size asked for a checkpoint after
 * every commit (570 of them in a first sync of 10,001 chunks).
 */
import fs from 'node:fs'
import os from 'node:os'

/** The wal-index format SQLite has written since 3.7.0 (iVersion, in the header's first word). */
const WAL_INDEX_VERSION = 3007000
/** Bytes read: the header (48), its copy (48) and the checkpoint info's nBackfill (4). */
const HEADER_BYTES = 100
/** A frame's header before each page in the log (bytes). */
const FRAME_HEADER_BYTES = 24

/**
 * The backlog of one index's log, read through a descriptor of the wal-index held open until
 * close(). It must never be closed while a connection of this process has the index open:
 * closing any descriptor of a file drops every POSIX lock the process holds on it, and
 * SQLite's lock on the wal-index tells other processes that it is in use. Without it, any
 * other process opening the index (the sqlite3 shell, a backup) cut the wal-index to 3 bytes
 * as its first user, and the service, whose mapping then ended past the file, stopped on
 * SIGBUS at its next commit; opening and closing the file after each commit did that.
 */
export function createWalBacklog(dbPath: string) {
  let fd: number | null = null

  /** Bytes of the log past its last checkpoint; 0 with no log. */
  function bytes(): number {
    const header = Buffer.alloc(HEADER_BYTES)
    let read: number
    try {
      fd ??= fs.openSync(`${dbPath}-shm`, 'r')
      read = fs.readSync(fd, header, 0, HEADER_BYTES, 0)
    } catch {
      // No wal-index beside a log (a writer in exclusive locking mode keeps it in memory):
      // the log's size, which is 0 with no log either.
      return logFileBytes(dbPath)
    }
    // A wal-index it cannot read (of another format, or cut short) gives the log file's
    // size: a checkpoint asked for too often, never too late.
    return read < HEADER_BYTES ? logFileBytes(dbPath) : (backlogOf(header) ?? logFileBytes(dbPath))
  }

  return {
    bytes,
    /** Lets the descriptor go: only once no connection of this process has the index open. */
    close(): void {
      if (fd !== null) fs.closeSync(fd)
      fd = null
    },
  }
}

export type WalBacklog = ReturnType<typeof createWalBacklog>

/** The backlog a wal-index header tells, or null for a header of another format. */
function backlogOf(header: Buffer): number | null {
  // Native byte order, as SQLite maps it. The header is written while commits go on; a torn
  // read is only a wrong guess until the next commit looks again.
  const le = os.endianness() === 'LE'
  const u32 = (at: number) => (le ? header.readUInt32LE(at) : header.readUInt32BE(at))
  const u16 = (at: number) => (le ? header.readUInt16LE(at) : header.readUInt16BE(at))
  if (u32(0) !== WAL_INDEX_VERSION) return null
  // Page sizes are stored as (size & 0xff00) | (size >> 16), so 65536 reads as 1.
  const rawPage = u16(14)
  const pageSize = (rawPage & 0xfe00) + ((rawPage & 1) << 16)
  const frames = u32(16)
  const backfilled = u32(96)
  return Math.max(0, frames - backfilled) * (pageSize + FRAME_HEADER_BYTES)
}

function logFileBytes(dbPath: string): number {
  try {
    return fs.statSync(`${dbPath}-wal`).size
  } catch {
    return 0
  }
}
