/**
 * Writes the OpenAPI document generated from the route schemas to openapi/openapi.json, or
 * with --check fails when the checked-in file differs (CI's drift check). The app is built
 * on a throwaway workspace; no sync runs and nothing listens.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config/load-config.js'
import { createContainer } from '../src/container.js'
import { createLogger } from '../src/shared/logger.js'

export const OPENAPI_FILE = path.resolve(import.meta.dirname, '../openapi/openapi.json')

/** The OpenAPI document as checked in: pretty JSON with a trailing newline. */
export async function renderOpenApi(): Promise<string> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-openapi-'))
  try {
    fs.mkdirSync(path.join(tmp, 'workspace'))
    const config = loadConfig({ MNEMO_WORKSPACE: 'workspace', MNEMO_DATA_DIR: 'data', MNEMO_LOG_LEVEL: 'silent' }, tmp)
    const logger = createLogger(config.log)
    const app = await buildApp({ config, logger, container: createContainer(config, logger) })
    await app.ready()
    const doc = JSON.stringify(app.swagger(), null, 2) + '\n'
    await app.close()
    return doc
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

if (process.argv[1] === import.meta.filename) {
  const doc = await renderOpenApi()
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(OPENAPI_FILE) ? fs.readFileSync(OPENAPI_FILE, 'utf8') : ''
    if (current !== doc) {
      process.stderr.write(
        'openapi/openapi.json is out of date with the route schemas: run `npm run openapi` and commit it\n',
      )
      process.exit(1)
    }
    process.stdout.write('openapi/openapi.json is up to date\n')
  } else {
    fs.mkdirSync(path.dirname(OPENAPI_FILE), { recursive: true })
    fs.writeFileSync(OPENAPI_FILE, doc)
    process.stdout.write(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}\n`)
  }
}
