import { configDefaults, defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          // Browser tests need Chromium: npm run test:browser (vitest.browser.config.ts).
          exclude: [...configDefaults.exclude, 'test/browser/**', 'test/postgres/**'],
          // Integration tests start services with real timers and files; one file at a time
          // keeps their timing honest on a 2-core machine.
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'postgres',
          include: ['test/postgres/**/*.test.ts'],
          // One PostgreSQL for the run (PGlite unless MNEMO_TEST_DATABASE_URL names a server).
          globalSetup: ['test/postgres/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
})
