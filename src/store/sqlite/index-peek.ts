/**
 * What a closed index holds (files and chunks), read without opening it as the writer:
 * GET /agents lists agents that are not open without opening them (no watcher, no sync).
 */
import fs from 'node:fs'
import { openDatabase } from './database.js'

/** Files and chunks in the index at `dbPath`; zeros when there is none or it cannot be read. */
export function peekIndexCounts(dbPath: string): { files: number; chunks: number } {
  if (!fs.existsSync(dbPath)) return { files: 0, chunks: 0 }
  try {
    const db = openDatabase(dbPath, { readonly: true })
    try {
      const row = db
        .prepare<[], { files: number; chunks: number | null }>(
          'SELECT COUNT(*) AS files, SUM(chunk_count) AS chunks FROM files',
        )
        .get()
      return { files: row?.files ?? 0, chunks: row?.chunks ?? 0 }
    } finally {
      db.close()
    }
  } catch {
    // An index of another version or a torn file is rebuilt when the agent opens.
    return { files: 0, chunks: 0 }
  }
}
