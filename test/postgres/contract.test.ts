import { describeStoragePort, DIMS } from '../contract/storage-port.contract.js'
import { databaseVectors, testPostgresEngine } from './pg-engine.js'

describeStoragePort('PostgreSQL', () =>
  testPostgresEngine(databaseVectors() ? { backend: 'pgvector', dims: DIMS, shards: 1 } : null),
)
