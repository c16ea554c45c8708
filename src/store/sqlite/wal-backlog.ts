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
 * Bytes of the log past its last checkpoint; 0 with no log. A wal-index it cannot read (of
 * another format, missing or cut short) gives the log file's size: a checkpoint asked for
 * too often, never too late.
 */
export function walBacklogBytes(dbPath: string): number {
  const header = Buffer.alloc(HEADER_BYTES)
  let read: number
  try {
    const fd = fs.openSync(`${dbPath}-shm`, 'r')
    try {
      read = fs.readSync(fd, header, 0, HEADER_BYTES, 0)
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    // No wal-index beside a log (a writer in exclusive locking mode keeps it in memory):
    // the log's size, which is 0 with no log either.
    return logFileBytes(dbPath)
  }
  if (read < HEADER_BYTES) return logFileBytes(dbPath)
  // Native byte order, as SQLite maps it. The header is written while commits go on; a torn
  // read is only a wrong guess until the next commit looks again.
  const le = os.endianness() === 'LE'
  const u32 = (at: number) => (le ? header.readUInt32LE(at) : header.readUInt32BE(at))
  const u16 = (at: number) => (le ? header.readUInt16LE(at) : header.readUInt16BE(at))
  if (u32(0) !== WAL_INDEX_VERSION) return logFileBytes(dbPath)
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
