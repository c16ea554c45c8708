import { defineConfig } from 'vitest/config'

/**
 * `npm run test:openclaw`: the OpenClaw plugin in the real OpenClaw, apart from `npm test`
 * (it needs `npm ci --prefix integrations/openclaw`, a large install CI does in its own step).
 */
export default defineConfig({
  test: {
    include: ['test/openclaw/**/*.test.ts'],
    // The mnemo it starts runs from this run's bundles (bundles.ts).
    globalSetup: ['test/helpers/bundles.ts'],
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
})
