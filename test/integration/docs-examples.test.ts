/**
 * Every `curl` and `mnemo` example of README.md and docs/*.md, and every `ts` and `python`
 * block, runs, as a newcomer would run it, against a freshly started mnemo (src/main.ts as a child process, in a new empty folder,
 * so `./workspace` and its example MEMORY.md are created as on a first start), so the docs
 * cannot drift from the service. How examples are marked (`# →` output, `example-env`,
 * `example-skip`): test/helpers/doc-examples.ts.
 *
 * - One service per distinct `example-env` setup; its examples run one after another in
 *   document order (README.md first, then docs/manual.md, then the other docs/*.md by
 *   name), so one may read what an earlier one of the same setup wrote.
 * - `localhost:8787` and `127.0.0.1:8787` become the service's address (in stated outputs
 *   too); `mnemo` (and `scripts/mnemo`) runs
 *   src/cli.ts with MNEMO_URL set to it; nothing else of this process's environment leaks in.
 * - Each must exit 0; a `curl` answered with an HTTP status of 400 or more must say so in its
 *   `# →` output (e.g. `# → {"statusCode":403,"code":"AGENT_FORBIDDEN",…}`); a stated output
 *   must match.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { extractExamples, hasShape, setupEnv, type DocExample } from '../helpers/doc-examples.js'
import { entryOf } from '../helpers/entries.js'
import { startService, type ServiceProcess } from '../helpers/service-process.js'

const ROOT = path.resolve(import.meta.dirname, '../..')
const CLI = entryOf('cli')
/** Each curl reports its HTTP status on stderr after this tag. */
const STATUS_TAG = '@@mnemo-docs-status '

/**
 * Defined before every example: `mnemo` (also written `scripts/mnemo`) is the CLI (entries.ts),
 * `curl` reports its status codes (a doc's own `-w` wins: its status is then unknown), and the
 * runners of `ts` and `python` blocks (doc-examples.ts): TypeScript under tsx, with
 * `@mnemo/client` in the folder's node_modules; Python with the client's source on its path.
 */
const PRELUDE = `set -o pipefail
mnemo() { "$DOCS_NODE" \${DOCS_LOADER:+--import "$DOCS_LOADER"} "$DOCS_CLI" "$@"; }
scripts/mnemo() { mnemo "$@"; }
curl() { command curl --max-time 30 -w '%{stderr}${STATUS_TAG}%{http_code}\\n' "$@"; }
docs_run_ts() {
  [ -e node_modules/@mnemo/client ] || { mkdir -p node_modules/@mnemo && ln -s "$DOCS_CLIENT" node_modules/@mnemo/client; }
  "$DOCS_NODE" --import "$DOCS_TSX" "$@"
}
docs_run_py() { PYTHONPATH="$DOCS_PYTHONPATH" "$DOCS_PYTHON" "$@"; }
`
/** tsx's loader, by URL, for the TypeScript examples. */
const TSX = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href
/** Debian's Python, where CI installs httpx (clients/python/README.md). */
const PYTHON = '/usr/bin/python3'

/** `@mnemo/client` for the TypeScript examples: a package whose entry is the repository's src/client. */
function clientPackage(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-docs-client-'))
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: '@mnemo/client', type: 'module', exports: './index.ts' }),
  )
  const entry = pathToFileURL(path.join(ROOT, 'src/client/index.ts')).href
  fs.writeFileSync(path.join(dir, 'index.ts'), `export * from '${entry}'\n`)
  return dir
}
const CLIENT = clientPackage()
afterAll(() => fs.rmSync(CLIENT, { recursive: true, force: true }))

function docFiles(): string[] {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
  // The manual goes on where the README stops: its examples come right after the README's.
  return ['README.md', 'docs/manual.md', ...docs.filter((f) => f !== 'manual.md').map((f) => `docs/${f}`)]
}

const examples: DocExample[] = docFiles().flatMap((file) =>
  extractExamples(file, fs.readFileSync(path.join(ROOT, file), 'utf8')),
)
const setups = [...new Set(examples.map((e) => e.setup))]

type Run = { code: number; stdout: string; stderr: string; statuses: number[] }

/** The doc's address of mnemo, in commands and in outputs, as the service under test's. */
const atAddress = (text: string, baseUrl: string) =>
  text.replace(/\b(localhost|127\.0\.0\.1):8787\b/g, new URL(baseUrl).host)

function runExample(command: string, cwd: string, baseUrl: string): Promise<Run> {
  const script = PRELUDE + atAddress(command, baseUrl)
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      {
        cwd,
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: cwd,
          LANG: 'C.UTF-8',
          MNEMO_URL: baseUrl,
          DOCS_NODE: process.execPath,
          ...(CLI.loader && { DOCS_LOADER: CLI.loader }),
          DOCS_CLI: CLI.file,
          DOCS_TSX: TSX,
          DOCS_CLIENT: CLIENT,
          DOCS_PYTHON: PYTHON,
          DOCS_PYTHONPATH: path.join(ROOT, 'clients/python/src'),
        },
      },
      (err, stdout, stderr) => {
        const statuses = [...stderr.matchAll(new RegExp(`${STATUS_TAG}(\\d+)`, 'g'))].map((m) => Number(m[1]))
        resolve({
          code: err ? ((err as { code?: number }).code ?? 1) : 0,
          stdout,
          stderr: stderr.replace(new RegExp(`\\n?${STATUS_TAG}\\d+\\n`, 'g'), ''),
          statuses,
        })
      },
    )
  })
}

it('finds the examples of the README and the manual (the extraction still works)', () => {
  expect(examples.filter((e) => e.where.startsWith('README.md:') && !e.skip).length).toBeGreaterThanOrEqual(1)
  expect(examples.filter((e) => e.where.startsWith('docs/manual.md:') && !e.skip).length).toBeGreaterThanOrEqual(10)
})

describe.each(setups)('docs examples on a service with %j', (setup) => {
  const mine = examples.filter((e) => e.setup === setup)
  let folder: string
  let service: ServiceProcess | undefined
  let baseUrl: string

  beforeAll(async () => {
    if (mine.every((e) => e.skip)) return
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-docs-'))
    service = startService(setupEnv(setup), folder)
    baseUrl = await service.ready()
  }, 60_000)
  afterAll(async () => {
    service?.kill('SIGKILL')
    await service?.exited
    if (folder) fs.rmSync(folder, { recursive: true, force: true })
  })

  for (const example of mine) {
    const title = `${example.where} ${example.command.split('\n')[0] as string}`
    if (example.skip) {
      it.skip(`${title} (skipped: ${example.skip})`, () => {})
      continue
    }
    it(title, async () => {
      const run = await runExample(example.command, folder, baseUrl)
      const output = run.stdout + run.stderr
      const report = `${example.where}\n$ ${example.command}\nexit ${run.code}, HTTP ${run.statuses.join(', ')}\n${output}`
      expect(run.code, report).toBe(0)
      for (const status of run.statuses.filter((s) => s >= 400)) {
        expect(example.expected ?? '', `an HTTP ${status} the doc does not show (# → …)\n${report}`).toContain(
          String(status),
        )
      }
      if (example.expected !== undefined) {
        const expected = atAddress(example.expected, baseUrl)
        expect(hasShape(output, expected), `the output is not # → ${expected}\n${report}`).toBe(true)
      }
    })
  }
})
