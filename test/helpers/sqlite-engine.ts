/** A SQLite engine without vectors over `dataDir` (its main agent's index in index.sqlite), for engine-level tests. */
import path from 'node:path'
import { createReaderOps } from '../../src/search/index-reader.js'
import { createSqliteEngine } from '../../src/store/sqlite/engine.js'

export const keywordSqliteEngine = (dataDir: string) =>
  createSqliteEngine({
    readOps: createReaderOps,
    dataDir,
    mainDbPath: path.join(dataDir, 'index.sqlite'),
    mainAgent: 'main',
    vectors: () => null,
    loadVectorExtension: () => undefined,
  })
