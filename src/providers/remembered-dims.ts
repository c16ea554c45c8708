/**
 * Embedding dimensions learnt from a server, remembered in MNEMO_DATA_DIR
 * (`embedding-dims.json`, keyed by endpoint and model), so a restart while the model
 * server is down starts with vectors at once instead of in keyword mode (probe-dims.ts).
 * A missing or torn file is simply "nothing remembered": the server is asked again.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from '../shared/logger.js'
import { publicErrorMessage } from '../shared/public-error.js'
import { embeddingsUrl } from './openai-embeddings.js'

export const REMEMBERED_DIMS_FILE = 'embedding-dims.json'

/** What the dimensions are remembered by: the endpoint (without credentials) and the model. */
export function dimsKey(baseUrl: string, model: string): string {
  const url = new URL(embeddingsUrl(baseUrl))
  url.username = ''
  url.password = ''
  return `${url.href} ${model}`
}

function readAll(dataDir: string): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(path.join(dataDir, REMEMBERED_DIMS_FILE), 'utf8'))
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, number>) : {}
  } catch {
    return {}
  }
}

export function readRememberedDims(dataDir: string, key: string): number | undefined {
  const dims = readAll(dataDir)[key]
  return Number.isInteger(dims) && (dims as number) > 0 ? dims : undefined
}

/** Remembers `dims` for `key` (written whole to a temp file and renamed over the old one). */
export function rememberDims(dataDir: string, key: string, dims: number): void {
  const all = { ...readAll(dataDir), [key]: dims }
  const file = path.join(dataDir, REMEMBERED_DIMS_FILE)
  fs.mkdirSync(dataDir, { recursive: true })
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(all, null, 2)}\n`)
  fs.renameSync(`${file}.tmp`, file)
}

/** rememberDims, with a failure (an unwritable data dir) logged: the dimensions still serve this run. */
export function rememberDimsOrWarn(dataDir: string, key: string, dims: number, log: Logger): void {
  try {
    rememberDims(dataDir, key, dims)
  } catch (err) {
    log.warn({ error: publicErrorMessage(err) }, 'could not remember the embedding dimensions in MNEMO_DATA_DIR')
  }
}
