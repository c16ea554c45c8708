/**
 * Room on the volume an index lives on. An index that fills its volume to the last byte can
 * neither checkpoint its write-ahead log (which copies pages into the database file) nor
 * delete anything (a deletion is written to the log first), so it could not recover without
 * an operator. New chunks are therefore refused (507 STORAGE_FULL) while less than a
 * reserve is left — counting pages the index has freed, which new chunks reuse first — and
 * the log is checkpointed well before it could fill a small volume.
 */
import fs from 'node:fs'

/** Room kept free: an eighth of the volume, at most 16 MiB (bytes). */
const MAX_RESERVE_BYTES = 16 * 1024 * 1024
/** The log is checkpointed at this size, or at a sixteenth of a smaller volume (bytes). */
const MAX_WAL_BYTES = 4 * 1024 * 1024
type Volume = { freeBytes: number; totalBytes: number }

export function createVolumeRoom(dir: string) {
  /** The volume now (statfs: a few µs, cheap next to the batch it is read for). */
  function read(): Volume | null {
    try {
      const st = fs.statfsSync(dir)
      return { freeBytes: st.bavail * st.bsize, totalBytes: st.blocks * st.bsize }
    } catch {
      return null
    }
  }

  return {
    /**
     * Whether more chunks may be written: the volume keeps its reserve, counting `freedBytes`
     * (pages free inside the index, asked only when the volume itself is short).
     */
    hasRoom(freedBytes: () => number): boolean {
      const v = read()
      if (!v) return true
      const reserve = Math.min(MAX_RESERVE_BYTES, v.totalBytes / 8)
      return v.freeBytes > reserve || v.freeBytes + freedBytes() > reserve
    },
    /**
     * Whether `bytes` more fit on the volume beside its reserve, counting `freedBytes`: room
     * for work that writes a copy of data before it frees the original (an FTS5 merge).
     */
    hasRoomFor(bytes: number, freedBytes: () => number): boolean {
      const v = read()
      if (!v) return true
      const reserve = Math.min(MAX_RESERVE_BYTES, v.totalBytes / 8)
      return v.freeBytes + freedBytes() - reserve >= bytes
    },
    /** Log size at which a checkpoint is due, and the log is cut back to after one (bytes). */
    walCheckpointBytes(): number {
      const v = read()
      return v ? Math.min(MAX_WAL_BYTES, v.totalBytes / 16) : MAX_WAL_BYTES
    },
  }
}
