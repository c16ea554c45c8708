import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { MAIN_AGENT } from '../../src/shared/agent-id.js'
import type { VectorBackend } from '../../src/store/port.js'
import { createSqliteEngine } from '../../src/store/sqlite/engine.js'
import { loadSqliteVec } from '../../src/store/sqlite/sqlite-vec.js'
import { describeStoragePort, DIMS, type EngineUnderTest } from './storage-port.contract.js'
import { createReaderOps } from '../../src/search/index-reader.js'

/** A SQLite engine over a fresh data folder, storing vectors with `backend`. */
function sqliteEngine(backend: VectorBackend): () => Promise<EngineUnderTest> {
  return async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-contract-'))
    const engine = createSqliteEngine({
      readOps: createReaderOps,
      dataDir,
      mainDbPath: path.join(dataDir, 'index.sqlite'),
      mainAgent: MAIN_AGENT,
      vectors: () => ({ backend, dims: DIMS, shards: 2 }),
      loadVectorExtension: loadSqliteVec,
    })
    return { engine, vectors: true, dispose: async () => fs.rmSync(dataDir, { recursive: true, force: true }) }
  }
}

describeStoragePort('SQLite with sqlite-vec', sqliteEngine('sqlite-vec'))
describeStoragePort('SQLite with the exact scan', sqliteEngine('scan'))
