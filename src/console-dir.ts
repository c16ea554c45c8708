/**
 * Where the built web console is (console/, built by `npm run build`): dist/console in the
 * package, found from this module, which is src/console-dir.ts in the source and
 * dist/console-dir.js once built.
 */
import path from 'node:path'

export const CONSOLE_DIR = path.resolve(import.meta.dirname, '..', 'dist', 'console')
