import { defineConfig } from 'vitest/config';

// One run covers every package; each package is its own project so it can be run alone
// (`pnpm vitest run --project engine`).
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'engine', root: 'packages/engine', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] } },
      {
        test: {
          name: 'adapters',
          root: 'packages/adapters',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'conformance/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: { name: 'codegen', root: 'packages/codegen', include: ['src/**/*.test.ts'], testTimeout: 30_000 },
      },
      { test: { name: 'web', root: 'apps/web', include: ['src/**/*.test.ts'] } },
      // The benchmarks' pure helpers (what --check fails on); the benchmarks themselves run by hand.
      { test: { name: 'bench', root: 'bench', include: ['lib/**/*.test.ts'] } },
      {
        test: {
          name: 'api',
          root: 'apps/api',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
