/** A workspace in a fresh temp directory, with helpers to write, delete and link files. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export type TempWorkspace = ReturnType<typeof createTempWorkspace>

const CORPUS_DIR = path.resolve(import.meta.dirname, '../fixtures/corpus')

/** Creates `<tmp>/workspace` (optionally a copy of the fixture corpus) and `<tmp>/data`. */
export function createTempWorkspace(opts: { corpus?: boolean } = {}) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-test-')))
  const root = path.join(base, 'workspace')
  fs.mkdirSync(root)
  if (opts.corpus) fs.cpSync(CORPUS_DIR, root, { recursive: true })
  const abs = (rel: string) => path.join(root, ...rel.split('/'))
  return {
    base,
    root,
    dataDir: path.join(base, 'data'),
    abs,
    write(rel: string, text: string): void {
      fs.mkdirSync(path.dirname(abs(rel)), { recursive: true })
      fs.writeFileSync(abs(rel), text)
    },
    read: (rel: string): string => fs.readFileSync(abs(rel), 'utf8'),
    remove: (rel: string): void => fs.rmSync(abs(rel), { force: true, recursive: true }),
    symlink(target: string, rel: string): void {
      fs.mkdirSync(path.dirname(abs(rel)), { recursive: true })
      fs.symlinkSync(target, abs(rel))
    },
    cleanup: (): void => fs.rmSync(base, { recursive: true, force: true }),
  }
}
