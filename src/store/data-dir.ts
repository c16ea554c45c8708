/**
 * MNEMO_DATA_DIR at start-up: created when missing, and a folder the service cannot write
 * stops start-up with a message that names the variable and the path (serve.ts prints the
 * message of a CONFIG_INVALID error as it prints a bad setting).
 */
import fs from 'node:fs'
import { publicErrorMessage } from '../shared/public-error.js'

/** A start-up error reported like a bad setting: serve.ts prints its message alone. */
export const settingError = (message: string, cause?: unknown) =>
  Object.assign(new Error(message, { cause }), { code: 'CONFIG_INVALID' })

export function ensureDataDir(dataDir: string): void {
  try {
    fs.mkdirSync(dataDir, { recursive: true })
    fs.accessSync(dataDir, fs.constants.W_OK | fs.constants.X_OK)
  } catch (err) {
    throw settingError(`MNEMO_DATA_DIR: ${dataDir} is not a writable folder (${publicErrorMessage(err)})`, err)
  }
}

/** The start-up error for an index file that cannot be opened. */
export const indexOpenError = (dbPath: string, err: unknown): Error =>
  settingError(`MNEMO_DATA_DIR: cannot open the index ${dbPath} (${publicErrorMessage(err)})`, err)
