/**
 * The storage engines a benchmark runs the service on (`--engines`): SQLite files in the
 * data dir (the default), a real PostgreSQL server (MNEMO_TEST_DATABASE_URL, which
 * scripts/with-postgres sets), or PGlite with pgvector (bench/pglite-server.ts) where the
 * server has no pgvector. Each index a benchmark builds gets its own data dir and, on
 * PostgreSQL, its own schema, so every cold index starts empty.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
// eslint-disable-next-line no-restricted-imports -- tooling outside src/ that reads the index's state
import pg from 'pg'
import { dropSchema, schemaBytes } from '../scripts/drop-schema.js'
import { LIST_MIN_ROWS } from '../src/store/sqlite/impact-lists.js'
import { impactListStatus, rareListStatus } from '../src/store/sqlite/impact-status.js'
import { RARE_MIN_ROWS } from '../src/store/sqlite/rare-lists.js'

export const ENGINE_NAMES = ['sqlite', 'postgres', 'pglite'] as const
export type EngineName = (typeof ENGINE_NAMES)[number]

export type BenchEngine = {
  name: EngineName
  /** Whether several service processes can share one index (replicas). */
  shared: boolean
  /** The service's environment for the index of `dataDir`. */
  env(dataDir: string): Record<string, string>
  /** Deletes the index of `dataDir` (its files and, on PostgreSQL, its schema). */
  drop(dataDir: string): Promise<void>
  /** Bytes the index of `dataDir` takes on disk (its files, or its schema's tables and indexes). */
  diskBytes(dataDir: string): Promise<number>
  /**
   * Whether the impact lists the index of `dataDir` (`chunks` chunks) builds in the
   * background after a sync are built: SQLite's, and PostgreSQL's after a first index.
   */
  listsBuilt(dataDir: string, chunks: number): Promise<boolean>
  close(): Promise<void>
}

/** Bytes of every file under `dir`. */
function folderBytes(dir: string): number {
  let bytes = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += fs.statSync(path.join(entry.parentPath, entry.name)).size
  }
  return bytes
}

/** Whether the SQLite index of `dataDir` (`chunks` chunks) has its impact and rare lists, or is too small for them. */
export const sqliteListsBuilt = async (dataDir: string, chunks: number): Promise<boolean> =>
  (chunks < LIST_MIN_ROWS || impactListStatus(path.join(dataDir, 'index.sqlite')).built) &&
  (chunks < RARE_MIN_ROWS || rareListStatus(path.join(dataDir, 'index.sqlite')).built)

const sqlite: BenchEngine = {
  name: 'sqlite',
  shared: false,
  env: (dataDir) => ({ MNEMO_DATA_DIR: dataDir }),
  drop: async (dataDir) => fs.rmSync(dataDir, { recursive: true, force: true }),
  diskBytes: async (dataDir) => folderBytes(dataDir),
  listsBuilt: sqliteListsBuilt,
  close: async () => undefined,
}

/** Whether no live index of `schema` has impact lists paused or being built (src/store/postgres/list-resume.ts). */
export async function pgListsKept(url: string, schema: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ kept: boolean }>(
      `SELECT NOT EXISTS (SELECT 1 FROM "${schema}".indexes WHERE state = 'live' AND lists <> 'kept') AS kept`,
    )
    return rows[0]?.kept === true
  } finally {
    await client.end()
  }
}

/** A PostgreSQL engine on `url`: one fresh schema per data dir, dropped with it. */
function postgres(name: EngineName, url: string, pool: number | null, stop: () => Promise<void>): BenchEngine {
  const schemas = new Map<string, string>()
  const schemaOf = (dataDir: string) => {
    let schema = schemas.get(dataDir)
    if (!schema) schemas.set(dataDir, (schema = `bench_${process.pid}_${schemas.size}`))
    return schema
  }
  return {
    name,
    shared: true,
    env: (dataDir) => ({
      MNEMO_DATA_DIR: dataDir,
      MNEMO_DATABASE_URL: url,
      MNEMO_DATABASE_SCHEMA: schemaOf(dataDir),
      ...(pool !== null && { MNEMO_DATABASE_POOL: String(pool) }),
    }),
    async drop(dataDir) {
      fs.rmSync(dataDir, { recursive: true, force: true })
      await dropSchema(url, schemaOf(dataDir))
    },
    diskBytes: (dataDir) => schemaBytes(url, schemaOf(dataDir)),
    listsBuilt: (dataDir) => pgListsKept(url, schemaOf(dataDir)),
    close: stop,
  }
}

const TSX_LOADER = pathToFileURL(path.resolve(import.meta.dirname, '../node_modules/tsx/dist/loader.mjs')).href

/** Starts bench/pglite-server.ts and resolves with its URL and a stop function. */
async function startPglite(): Promise<{ url: string; stop: () => Promise<void> }> {
  const script = path.resolve(import.meta.dirname, 'pglite-server.ts')
  const child = spawn(process.execPath, ['--import', TSX_LOADER, script], { stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise((r) => child.once('exit', r))
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString()
      if (out.includes('\n')) resolve(out.trim())
    })
    child.once('exit', (code) => reject(new Error(`pglite-server exited with ${code}`)))
  })
  return {
    url,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

export async function openEngine(name: EngineName): Promise<BenchEngine> {
  switch (name) {
    case 'sqlite':
      return sqlite
    case 'postgres': {
      const url = process.env.MNEMO_TEST_DATABASE_URL
      if (!url) throw new Error('--engines postgres needs MNEMO_TEST_DATABASE_URL (run under scripts/with-postgres)')
      // The service's default pool (MNEMO_DATABASE_POOL=10).
      return postgres(name, url, null, async () => undefined)
    }
    case 'pglite': {
      const server = await startPglite()
      // One connection: PGlite's socket server interleaves concurrent connections' statements.
      return postgres(name, server.url, 1, server.stop)
    }
  }
}
