import { defineConfig } from 'vitest/config'

/** `npm run test:browser`: tests in a real browser, apart from `npm test` (they need Chromium). */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    // The services they start run from this run's bundles, with the console built (bundles.ts).
    globalSetup: ['test/helpers/bundles.ts'],
    // One Chromium at a time: the two files each start a service and a browser.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
