/**
 * Bundles the search workers' script (src/search/reader-worker.ts) once per test run, so the
 * apps the tests build start their workers from plain JS (ContainerOverrides.readerWorkerEntry)
 * instead of registering tsx's loader in each one: about 33 against 70 ms a worker, for some
 * 700 workers a run. The bundle is today's source; packages stay imports, resolved from the
 * project's node_modules, where the bundle is written.
 */
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** file: URL of the bundled search worker script. */
    readerWorkerEntry: string
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const root = path.resolve(import.meta.dirname, '../..')
  const cache = path.join(root, 'node_modules', '.cache')
  fs.mkdirSync(cache, { recursive: true })
  const dir = fs.mkdtempSync(path.join(cache, 'mnemo-test-worker-'))
  const outfile = path.join(dir, 'reader-worker.mjs')
  await build({
    entryPoints: [path.join(root, 'src/search/reader-worker.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile,
    logLevel: 'error',
  })
  project.provide('readerWorkerEntry', pathToFileURL(outfile).href)
  return () => fs.rmSync(dir, { recursive: true, force: true })
}
