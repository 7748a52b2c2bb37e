/**
 * For the store tests: the two places they run — a SQLite file in a temp dir and a throwaway
 * PostgreSQL database (random name, dropped afterwards) — and small fixtures. `open` can be
 * called several times per backend to get independent connections to the same data, which is
 * how the tests stand in for several processes.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Json, RunEventInput } from '@weft/engine';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openPostgresStore, openSqliteStore } from './index.ts';
import type { StoreDatabase } from './schema.ts';
import { NodeSqliteDatabase, NodeSqliteDialect } from './sqlite-dialect.ts';
import type { JournalEntry, NewRun, RunStore } from './types.ts';

export function completed(stepId: string, output: Json = { ok: stepId }): JournalEntry {
  return { stepId, kind: 'tool', inputHash: `h-${stepId}`, status: 'completed', output, error: null };
}

export function stepEvents(stepId: string): RunEventInput[] {
  return [
    { type: 'step.started', stepId, stepType: 'tool' },
    { type: 'step.completed', stepId, output: { ok: stepId } },
  ];
}

export interface TestBackend {
  readonly name: 'sqlite' | 'postgres';
  setup(): Promise<void>;
  /** A new store instance (own connection / pool) on the backend's database. */
  open(): Promise<RunStore>;
  /**
   * A plain Kysely connection to the same database, for what no store method does: writing rows
   * as an older schema had them, or timestamps a test needs. The caller destroys it.
   */
  connect(): Kysely<StoreDatabase>;
  teardown(): Promise<void>;
}

export function sqliteBackend(): TestBackend {
  let dir = '';
  return {
    name: 'sqlite',
    async setup() {
      dir = mkdtempSync(join(tmpdir(), 'weft-store-'));
    },
    open: () => openSqliteStore(join(dir, 'nested', 'weft.db')),
    connect() {
      mkdirSync(join(dir, 'nested'), { recursive: true });
      const raw = new DatabaseSync(join(dir, 'nested', 'weft.db'), { timeout: 5_000 });
      return new Kysely({ dialect: new NodeSqliteDialect(new NodeSqliteDatabase(raw)) });
    },
    async teardown() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The admin database to create test databases from; WEFT_TEST_PG_URL overrides. */
const ADMIN_URLS = process.env.WEFT_TEST_PG_URL
  ? [process.env.WEFT_TEST_PG_URL]
  : ['postgres://postgres@127.0.0.1:5432/test', 'postgres://root@127.0.0.1:5432/test'];

async function connectAdmin(): Promise<{ client: pg.Client; url: URL }> {
  const failures: string[] = [];
  for (const url of ADMIN_URLS) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      return { client, url: new URL(url) };
    } catch (error) {
      failures.push(`${url}: ${(error as Error).message}`);
      await client.end().catch(() => {});
    }
  }
  throw new Error(
    `PostgreSQL is not reachable (${failures.join('; ')}). Start it with: ` +
      'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  );
}

export function postgresBackend(): TestBackend {
  // Lowercase letters and digits only, so the name needs no quoting rules beyond the quotes.
  const database = `weft_store_${Math.random().toString(36).slice(2, 10)}`;
  let url = '';
  return {
    name: 'postgres',
    async setup() {
      const admin = await connectAdmin();
      try {
        await admin.client.query(`CREATE DATABASE "${database}"`);
      } finally {
        await admin.client.end();
      }
      admin.url.pathname = `/${database}`;
      url = admin.url.toString();
    },
    open: () => openPostgresStore(url),
    connect: () =>
      new Kysely({
        dialect: new PostgresDialect({
          // int8 (the ms timestamps) as numbers, as the store's own pool reads them.
          pool: new pg.Pool({
            connectionString: url,
            max: 2,
            types: {
              getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
                oid === 20 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
            },
          }),
        }),
      }),
    async teardown() {
      if (url === '') return;
      const admin = await connectAdmin();
      try {
        await admin.client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      } finally {
        await admin.client.end();
      }
    },
  };
}

/**
 * For a store test over one backend (inside its `describe`): the store, opened before the
 * tests (`store` forwards to it); `open()` for more connections, all closed after them; and
 * unique ids and run rows, since the tests share one database.
 */
export function storeHarness(backend: TestBackend) {
  let current: RunStore | undefined;
  const opened: RunStore[] = [];
  const open = async (): Promise<RunStore> => {
    const store = await backend.open();
    opened.push(store);
    return store;
  };
  beforeAll(async () => {
    await backend.setup();
    current = await open();
  });
  afterAll(async () => {
    for (const store of opened) await store.close();
    await backend.teardown();
  });
  const live = (): RunStore => {
    if (!current) throw new Error('the test store opens in beforeAll');
    return current;
  };
  const store = new Proxy({} as RunStore, {
    get(_target, key) {
      const value = Reflect.get(live(), key);
      return typeof value === 'function' ? value.bind(live()) : value;
    },
  });
  let counter = 0;
  const uid = (prefix: string): string => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
  const newRun = (overrides: Partial<NewRun> = {}): NewRun => ({
    id: uid('run'),
    flowId: 'flow',
    flowVersion: 1,
    flow: { irVersion: 1, id: 'flow', steps: [] },
    input: { ticket: 'hi' },
    backend: 'inprocess',
    ...overrides,
  });
  const created = async (overrides: Partial<NewRun> = {}): Promise<string> => {
    const run = newRun(overrides);
    await live().createRun(run);
    return run.id;
  };
  return { store, open, uid, newRun, created };
}
