/**
 * MNEMO_DATA_DIR at start-up: created when missing, and a folder the service cannot write
 * stops start-up with a ConfigError that names the variable and the path.
 */
import fs from 'node:fs'
import { ConfigError } from '../shared/config-error.js'
import { publicErrorMessage } from '../shared/public-error.js'

export function ensureDataDir(dataDir: string): void {
  try {
    fs.mkdirSync(dataDir, { recursive: true })
    fs.accessSync(dataDir, fs.constants.W_OK | fs.constants.X_OK)
  } catch (err) {
    throw new ConfigError(`MNEMO_DATA_DIR: ${dataDir} is not a writable folder (${publicErrorMessage(err)})`, {
      cause: err,
    })
  }
}

/** The start-up error for an index file that cannot be opened. */
export const indexOpenError = (dbPath: string, err: unknown): Error =>
  new ConfigError(`MNEMO_DATA_DIR: cannot open the index ${dbPath} (${publicErrorMessage(err)})`, { cause: err })
