/** Loads the sqlite-vec extension (vec0 tables, cosine KNN) into a connection. */
import * as sqliteVec from 'sqlite-vec'
import type { Db } from './database.js'

export function loadSqliteVec(db: Db): void {
  sqliteVec.load(db)
}
