/**
 * Checkpoints an index's write-ahead log from a connection of its own. The writer's
 * connection does not checkpoint when the search workers can (index-store.ts): a checkpoint
 * copies the log into the database and syncs it to disk, tens to hundreds of ms that would
 * otherwise stall the event loop inside some commit. PASSIVE never waits for the writer or
 * the readers, so it cannot hold up the writer either; the writer truncates the log when it
 * next starts it over (journal_size_limit, database.ts and volume-room.ts).
 */
import Database from 'better-sqlite3'

export type CheckpointResult = { busy: number; log: number; checkpointed: number }

export function checkpointWal(dbPath: string): CheckpointResult {
  const db = new Database(dbPath, { fileMustExist: true })
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[]
    return row ?? { busy: 0, log: 0, checkpointed: 0 }
  } finally {
    db.close()
  }
}
