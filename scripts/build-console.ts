/**
 * Builds the web console (console/) into dist/console: index.html, app.js (Preact, uPlot and
 * the views in one minified ES module) and app.css. Part of `npm run build`; the tests build
 * it into their bundles folder (test/helpers/bundles.ts).
 */
import fs from 'node:fs'
import path from 'node:path'
import { build } from 'esbuild'

const ROOT = path.resolve(import.meta.dirname, '..')
export const CONSOLE_SOURCE = path.join(ROOT, 'console')

export async function buildConsole(outDir: string): Promise<void> {
  fs.mkdirSync(outDir, { recursive: true })
  await build({
    entryPoints: { app: path.join(CONSOLE_SOURCE, 'src', 'main.tsx') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: outDir,
    logLevel: 'error',
    legalComments: 'none',
  })
  fs.copyFileSync(path.join(CONSOLE_SOURCE, 'index.html'), path.join(outDir, 'index.html'))
}

if (process.argv[1] === import.meta.filename) {
  const out = path.join(ROOT, 'dist', 'console')
  await buildConsole(out)
  process.stdout.write(`wrote ${path.relative(process.cwd(), out)}\n`)
}
