/**
 * How tests run the service and the CLI as processes: from this run's bundles (bundles.ts),
 * or from the sources under tsx's loader in a project that made none.
 */
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { inject } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
/** tsx's loader by absolute URL: the child may run where `--import tsx` would not resolve. */
const TSX_LOADER = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href

export type Entry = {
  /** The script to run. */
  file: string
  /** A loader to import first (`--import`), for TypeScript sources. */
  loader?: string
}

export function entryOf(name: 'main' | 'cli'): Entry {
  const bundles = inject('bundlesDir')
  return bundles
    ? { file: path.join(bundles, 'src', `${name}.js`) }
    : { file: path.join(ROOT, 'src', `${name}.ts`), loader: TSX_LOADER }
}

/** The arguments of `node` that run the entry. */
export const nodeArgs = (entry: Entry): string[] => [...(entry.loader ? ['--import', entry.loader] : []), entry.file]
