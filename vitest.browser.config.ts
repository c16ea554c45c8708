import { defineConfig } from 'vitest/config'

/** `npm run test:browser`: tests in a real browser, apart from `npm test` (they need Chromium). */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
