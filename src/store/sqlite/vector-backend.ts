/**
 * Chooses how vectors are searched: sqlite-vec when its extension loads (probed once on a
 * scratch connection), otherwise the exact in-memory scan, logged as a warning. Asking for
 * sqlite-vec explicitly (MNEMO_VECTOR_BACKEND=sqlite-vec) makes a failed load a start-up error.
 */
import Database from 'better-sqlite3'
import { ConfigError } from '../../shared/config-error.js'
import type { Logger } from '../../shared/logger.js'
import type { Db } from './database.js'
import type { VectorBackend, VectorPreference } from '../port.js'

export function chooseVectorBackend(preference: VectorPreference, load: (db: Db) => void, log: Logger): VectorBackend {
  if (preference === 'scan') return 'scan'
  const probe = new Database(':memory:')
  try {
    load(probe)
    return 'sqlite-vec'
  } catch (err) {
    if (preference === 'sqlite-vec') {
      throw new ConfigError(
        `MNEMO_VECTOR_BACKEND=sqlite-vec, but the extension does not load: ${(err as Error).message}`,
      )
    }
    log.warn({ err }, 'sqlite-vec does not load; vectors are searched by an exact in-memory scan')
    return 'scan'
  } finally {
    probe.close()
  }
}
