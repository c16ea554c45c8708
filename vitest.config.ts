import { configDefaults, defineConfig } from 'vitest/config'

/** API test files that run on both engines (the rest exercise SQLite files or processes). */
const POSTGRES_API_SUITE = [
  'test/integration/search.routes.test.ts',
  'test/integration/hybrid.search.test.ts',
  'test/integration/files.routes.test.ts',
  'test/integration/files.write.test.ts',
  'test/integration/flush.test.ts',
  'test/integration/indexing.routes.test.ts',
  'test/integration/rebuild.test.ts',
  'test/integration/agents.lifecycle.test.ts',
  'test/integration/agents.team.test.ts',
  'test/integration/agents.isolation.test.ts',
  'test/integration/mcp.test.ts',
  'test/integration/time-range.test.ts',
  'test/integration/export-import.test.ts',
  'test/integration/events.test.ts',
  'test/integration/agents.grants.test.ts',
  'test/integration/prepare-checkpoints.test.ts',
  'test/integration/admission.slow-bodies.test.ts',
  'test/integration/entries.search.test.ts',
  'test/integration/entries.writes.test.ts',
  'test/integration/users.test.ts',
  'test/integration/searches.test.ts',
]

export default defineConfig({
  test: {
    // Transformed modules are kept on disk (node_modules/.experimental-vitest-cache, keyed by
    // content, config and Node version; gone with a reinstall), so a run after the first
    // transforms only what changed: transform and import 6.8 s summed against 14.3 s here,
    // npm test 93 against 98 s. CI, on a fresh install, starts without it.
    experimental: { fsModuleCache: true },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'console/**/*.test.ts', 'integrations/openclaw/src/**/*.test.ts'],
          // The search workers of the apps tests build start from one bundle (see the helper).
          globalSetup: ['test/helpers/bundles.ts'],
          // Workers run file after file, importing shared modules once: starting a fresh worker
          // per file cost more than the tests. Tests keep no state between files (fake timers
          // are restored, temp folders and apps are theirs).
          isolate: false,
          // With the integration files, after the PostgreSQL projects (see integration).
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/helpers/bundles.ts'],
          // Browser tests need Chromium: npm run test:browser (vitest.browser.config.ts); the
          // OpenClaw test needs OpenClaw: npm run test:openclaw (vitest.openclaw.config.ts).
          exclude: [...configDefaults.exclude, 'test/browser/**', 'test/postgres/**', 'test/openclaw/**'],
          // Two files at a time: a file waits on disks, timers and child processes for much of
          // its run, and the second worker uses that idle core (npm test 126 → 102 s here).
          // Every file's services have their own temp folders and ports. Vitest runs projects
          // of one groupOrder in one pool, so their maxWorkers must agree.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          // Files share a worker and its loaded modules (the app, fastify, the MCP SDK), so
          // each file no longer pays about a second to import them. Each test builds its own
          // app and closes it (test/helpers/build-test-app.ts).
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'postgres',
          include: ['test/postgres/**/*.test.ts'],
          // One PostgreSQL for the run (PGlite unless MNEMO_TEST_DATABASE_URL names a server),
          // shared with postgres-api. Files run beside the other projects' (see postgres-api).
          globalSetup: ['test/postgres/global-setup.ts', 'test/helpers/bundles.ts'],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // The API suite again, on PostgreSQL (SPEC §10: both engines serve the same API).
          name: 'postgres-api',
          include: POSTGRES_API_SUITE,
          env: { MNEMO_TEST_ENGINE: 'postgres' },
          globalSetup: ['test/postgres/global-setup.ts', 'test/helpers/bundles.ts'],
          // Files run two at a time beside the SQLite projects' files, each in its own schema:
          // PGlite's socket server gives its one session to a connection for a whole round
          // trip or transaction (test/postgres/pglite-statement-queue.ts). Run alone, one
          // file at a time, this project kept one core idle for 30 s.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // Two service processes on one database; skipped without MNEMO_TEST_DATABASE_URL
          // (scripts/with-postgres starts a PostgreSQL 15 server for it, as .ci/run does).
          name: 'replicas',
          include: ['test/replicas/**/*.test.ts'],
          globalSetup: ['test/helpers/bundles.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
})
