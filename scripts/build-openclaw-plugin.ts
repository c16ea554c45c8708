/**
 * Builds the OpenClaw plugin (integrations/openclaw) into integrations/openclaw/dist/index.js:
 * its code and @mnemo/client (src/client) in one ES module, so the installed plugin depends on
 * nothing (OpenClaw refuses to install a plugin whose node_modules link outside it) and loads
 * into whichever OpenClaw hosts it (it imports no OpenClaw code, only its types).
 */
import path from 'node:path'
import { build } from 'esbuild'

const PLUGIN = path.resolve(import.meta.dirname, '..', 'integrations', 'openclaw')

await build({
  entryPoints: [path.join(PLUGIN, 'index.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  outfile: path.join(PLUGIN, 'dist', 'index.js'),
  logLevel: 'error',
  legalComments: 'none',
})
process.stdout.write('wrote integrations/openclaw/dist/index.js\n')
