/**
 * The in-process runner passes the conformance suite through RunService on both of its stores:
 * a SQLite file in a temp dir and a throwaway PostgreSQL database (created with a random name,
 * dropped after).
 */
import { describe } from 'vitest';
import { postgresBackend, sqliteBackend, type TestBackend } from '../src/store/test-support.ts';
import type { ConformanceAdapter } from './adapter.ts';
import { defineConformanceSuite } from './index.ts';
import { inProcessUnderTest, runServiceConformanceAdapter } from './run-service-adapter.ts';

function inProcessAdapter(backend: TestBackend): () => Promise<ConformanceAdapter> {
  return async () => {
    await backend.setup();
    const store = await backend.open();
    return runServiceConformanceAdapter({
      name: `inprocess (${backend.name})`,
      store,
      backend: inProcessUnderTest(store),
      cleanup: () => backend.teardown(),
    })();
  };
}

describe('inprocess on SQLite', () => {
  defineConformanceSuite(inProcessAdapter(sqliteBackend()));
});

describe('inprocess on PostgreSQL', () => {
  defineConformanceSuite(inProcessAdapter(postgresBackend()));
});
