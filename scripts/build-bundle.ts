/**
 * Bundles the service for a faster start (npm run build, after tsc): its code, from
 * src/serve.ts, over the dist/serve.js tsc wrote, and its read threads' script
 * (src/wiring/index-thread.ts) as dist/index-thread.js, where the bundled wiring/storage.ts
 * looks for it. Node then loads a few files instead of some 300 modules, each resolved and
 * read apart: spawn → /ready on an empty workspace 6–16 % sooner, and each read thread
 * starts sooner too (BENCHMARKS.md). dist/main.js stays tsc's: it checks the Node.js version
 * before it imports the bundle, which loads the native modules.
 *
 * Packages stay imports, resolved from node_modules as before. Code both entries share, and
 * what is imported on demand (the PostgreSQL engine, so a SQLite start does not load `pg`),
 * go to chunks beside them in dist/, so `import.meta.url` of every bundled module is a file
 * of dist/, as tsc's serve.js was (console-dir.ts, wiring/storage.ts resolve from it).
 */
import fs from 'node:fs'
import path from 'node:path'
import { build } from 'esbuild'

const CHUNK_PREFIX = 'bundle-'

const root = path.resolve(import.meta.dirname, '..')
const dist = path.join(root, 'dist')
// Chunks are named by their content: the last build's go first.
for (const name of fs.readdirSync(dist)) if (name.startsWith(CHUNK_PREFIX)) fs.rmSync(path.join(dist, name))
await build({
  entryPoints: {
    serve: path.join(root, 'src/serve.ts'),
    'index-thread': path.join(root, 'src/wiring/index-thread.ts'),
  },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  packages: 'external',
  outdir: dist,
  chunkNames: `${CHUNK_PREFIX}[name]-[hash]`,
  allowOverwrite: true,
  sourcemap: true,
  logLevel: 'warning',
})
