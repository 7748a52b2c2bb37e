import { defineConfig } from 'vitest/config';

// The browser specs: `pnpm test:e2e` (scripts/test.sh runs them after the unit tests). Kept out
// of the root config so `pnpm test` needs no browser. One file at a time: each starts its own
// server and Chromium.
export default defineConfig({
  test: {
    name: 'e2e',
    root: import.meta.dirname,
    include: ['**/*.spec.ts'],
    exclude: ['**/node_modules/**'],
    globalSetup: ['./support/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 360_000,
    teardownTimeout: 30_000,
  },
});
