/**
 * Bundles the service once per test run, so what the tests start runs as plain JS instead of
 * through tsx's loader, which resolves and transpiles every module on each start:
 * - the read threads' script (src/wiring/index-thread.ts), which the apps the tests build
 *   start their workers from (ContainerOverrides.readerWorkerEntry): about 33 against 70 ms a
 *   worker, for some 700 workers a run;
 * - the service and CLI entries (src/main.ts, src/cli.ts), for the tests that run them as
 *   processes (entries.ts): about 370 against 700 ms from spawn to a ready service.
 * - the web console (console/, scripts/build-console.ts) into dist/console, where the bundled
 *   service looks for it, and the apps the tests build are pointed to (consoleDir).
 * The bundles keep the repository's layout: `src/` beside a copy of package.json, which the
 * CLI reads its version from, with the threads' script beside the service's code, where
 * wiring/storage.ts looks for it. They are today's source; packages stay imports, resolved
 * from the project's node_modules, where the bundles are written. Every project that runs
 * apps or processes asks for them; they share one build (run-shared.ts).
 */
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import type { TestProject } from 'vitest/node'
import { buildConsole } from '../../scripts/build-console.js'
import { runShared } from './run-shared.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** file: URL of the bundled search worker script. */
    readerWorkerEntry: string
    /** Folder of the bundles: src/main.js, src/cli.js, src/index-thread.js, package.json. */
    bundlesDir: string
    /** The built web console (index.html, app.js, app.css). */
    consoleDir: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { value: dir, release } = await runShared('bundles', bundle)
  project.provide('readerWorkerEntry', pathToFileURL(path.join(dir, 'src', 'index-thread.js')).href)
  project.provide('bundlesDir', dir)
  project.provide('consoleDir', path.join(dir, 'dist', 'console'))
  return release
}

async function bundle() {
  const root = path.resolve(import.meta.dirname, '../..')
  const cache = path.join(root, 'node_modules', '.cache')
  fs.mkdirSync(cache, { recursive: true })
  const dir = fs.mkdtempSync(path.join(cache, 'mnemo-test-bundles-'))
  // Readable by the unprivileged service some tests run (mkdtemp makes it the owner's only).
  fs.chmodSync(dir, 0o755)
  fs.copyFileSync(path.join(root, 'package.json'), path.join(dir, 'package.json'))
  await build({
    entryPoints: ['main', 'cli', 'wiring/index-thread'].map((name) => path.join(root, 'src', `${name}.ts`)),
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outdir: path.join(dir, 'src'),
    entryNames: '[name]',
    logLevel: 'error',
  })
  await buildConsole(path.join(dir, 'dist', 'console'))
  return { value: dir, stop: () => fs.rmSync(dir, { recursive: true, force: true }) }
}
