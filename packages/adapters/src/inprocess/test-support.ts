/**
 * For the runner tests (here and in `test/`): stores reachable by URL — so a child process can
 * open the same one — a runner factory, and small async helpers. PostgreSQL databases get a
 * random name and are dropped afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventKey, type Flow, type RunEvent } from '@weft/engine';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { type FlowSource, memoryFlowSource } from '../backends/flow-source.ts';
import { createExecutorRegistry, type ExecutorOptions, type HostTool } from '../executors/index.ts';
import { ApprovalClosedError, RunEndedError } from '../service/errors.ts';
import { RunService } from '../service/run-service.ts';
import { openStore } from '../store/index.ts';
import type { RunStore } from '../store/types.ts';
import { inProcessBackend } from './backend.ts';
import type { HandOffStart } from './handoff.ts';
import type { ApprovalDecider } from './host.ts';
import { outcomeOf, type RunOutcome } from './options.ts';
import { InProcessRunner } from './runner.ts';

export interface StoreBackend {
  readonly name: 'sqlite' | 'postgres';
  /** Valid after setup(): what `openStore({ url })` opens, here or in another process. */
  readonly url: string;
  setup(): Promise<void>;
  /** A new store (own connection) on the backend's database; closed by teardown(). */
  open(): Promise<RunStore>;
  teardown(): Promise<void>;
}

function trackStores(): { track(store: RunStore): RunStore; closeAll(): Promise<void> } {
  const stores: RunStore[] = [];
  return {
    track(store) {
      stores.push(store);
      return store;
    },
    async closeAll() {
      for (const store of stores.splice(0)) await store.close().catch(() => {});
    },
  };
}

export function sqliteFileBackend(): StoreBackend {
  let dir = '';
  const opened = trackStores();
  return {
    name: 'sqlite',
    get url() {
      return join(dir, 'weft.db');
    },
    async setup() {
      dir = mkdtempSync(join(tmpdir(), 'weft-runner-'));
    },
    async open() {
      return opened.track(await openStore({ url: join(dir, 'weft.db') }));
    },
    async teardown() {
      await opened.closeAll();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

const ADMIN_URLS = process.env.WEFT_TEST_PG_URL
  ? [process.env.WEFT_TEST_PG_URL]
  : ['postgres://postgres@127.0.0.1:5432/test', 'postgres://root@127.0.0.1:5432/test'];

async function withAdmin<T>(work: (client: pg.Client, url: URL) => Promise<T>): Promise<T> {
  const failures: string[] = [];
  for (const url of ADMIN_URLS) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
    } catch (error) {
      failures.push(`${url}: ${(error as Error).message}`);
      await client.end().catch(() => {});
      continue;
    }
    try {
      return await work(client, new URL(url));
    } finally {
      await client.end();
    }
  }
  throw new Error(
    `PostgreSQL is not reachable (${failures.join('; ')}). Start it with: ` +
      'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  );
}

export function postgresDbBackend(): StoreBackend {
  const database = `weft_runner_${Math.random().toString(36).slice(2, 10)}`;
  let url = '';
  const opened = trackStores();
  return {
    name: 'postgres',
    get url() {
      return url;
    },
    async setup() {
      url = await withAdmin(async (client, admin) => {
        await client.query(`CREATE DATABASE "${database}"`);
        admin.pathname = `/${database}`;
        return admin.toString();
      });
    },
    async open() {
      return opened.track(await openStore({ url }));
    },
    async teardown() {
      await opened.closeAll();
      if (url) await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
    },
  };
}

export function bothBackends(): [string, StoreBackend][] {
  return [sqliteFileBackend(), postgresDbBackend()].map((backend) => [backend.name, backend]);
}

export interface HarnessOptions {
  tools?: Record<string, HostTool>;
  flows?: readonly Flow[] | FlowSource;
  decide?: ApprovalDecider;
  executors?: Omit<ExecutorOptions, 'tools'>;
  maxInputBytes?: number;
  handOff?: HandOffStart;
}

/** A runner whose host tools are known to both validation and the executor registry. */
export function createRunner(store: RunStore, options: HarnessOptions = {}): InProcessRunner {
  const tools = options.tools ?? {};
  const flows = Array.isArray(options.flows)
    ? memoryFlowSource(options.flows)
    : ((options.flows as FlowSource | undefined) ?? memoryFlowSource([]));
  return new InProcessRunner({
    store,
    tools,
    flows,
    executors: createExecutorRegistry({ ...options.executors, tools }),
    ...(options.decide ? { decide: options.decide } : {}),
    ...(options.maxInputBytes === undefined ? {} : { maxInputBytes: options.maxInputBytes }),
    ...(options.handOff ? { handOff: options.handOff } : {}),
  });
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Polls until `check` returns a value other than undefined/false; fails naming `what`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Event keys stored more than once (the log must hold each fact once). */
export function duplicateKeys(events: readonly RunEvent[]): string[] {
  const seen = new Map<string, number>();
  for (const event of events) {
    const key = eventKey(event);
    if (key !== null) seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen].filter(([, count]) => count > 1).map(([key, count]) => `${key} ×${count}`);
}

/** A minimal valid flow around `steps`. */
export function flowOf(id: string, steps: unknown[], extra: Record<string, unknown> = {}): Flow {
  return { irVersion: 1, id, name: id, version: 1, steps, ...extra } as unknown as Flow;
}

/**
 * A decision the way the product makes it (RunService.decide over the in-process backend:
 * recorded, one of concurrent ones wins, then the run resumes in the background), awaited
 * until this runner's executions have settled. Not accepted: the approval was decided already
 * or the run has ended.
 */
export async function approve(
  runner: InProcessRunner,
  runId: string,
  stepId: string,
  decision: { approved: boolean; by?: string; comment?: string },
): Promise<{ accepted: boolean; outcome: RunOutcome }> {
  const backend = inProcessBackend(runner);
  const service = new RunService({ store: runner.store, backends: [backend] });
  const outcome = async () => {
    const run = await runner.store.getRun(runId);
    if (!run) throw new Error(`unknown run ${runId}`);
    return outcomeOf(run);
  };
  try {
    await service.decide(runId, stepId, {
      approved: decision.approved,
      by: decision.by ?? null,
      comment: decision.comment ?? null,
    });
  } catch (error) {
    if (error instanceof ApprovalClosedError || error instanceof RunEndedError)
      return { accepted: false, outcome: await outcome() };
    throw error;
  }
  await backend.settled();
  return { accepted: true, outcome: await outcome() };
}

/**
 * For a runner test file: a SQLite file store opened before its tests (`store` forwards to
 * it) and `runner(options)`, whose runners are all closed after them.
 */
export function sqliteRunnerHarness(): {
  store: RunStore;
  runner(options?: HarnessOptions): InProcessRunner;
  /** A runner on another connection to the same file, as another process would have. */
  runnerElsewhere(options?: HarnessOptions): Promise<InProcessRunner>;
} {
  const backend = sqliteFileBackend();
  let opened: RunStore | undefined;
  const runners: InProcessRunner[] = [];
  beforeAll(async () => {
    await backend.setup();
    opened = await backend.open();
  });
  afterAll(async () => {
    for (const created of runners) await created.close();
    await backend.teardown();
  });
  const current = (): RunStore => {
    if (!opened) throw new Error('the test store opens in beforeAll');
    return opened;
  };
  const store = new Proxy({} as RunStore, {
    get(_target, key) {
      const value = Reflect.get(current(), key);
      return typeof value === 'function' ? value.bind(current()) : value;
    },
  });
  return {
    store,
    runner(options = {}) {
      const created = createRunner(current(), options);
      runners.push(created);
      return created;
    },
    async runnerElsewhere(options = {}) {
      const created = createRunner(await backend.open(), options);
      runners.push(created);
      return created;
    },
  };
}

/** A host tool for tests. */
export function tool(execute: HostTool['execute']): HostTool {
  return { description: 'test tool', parameters: { type: 'object' }, execute };
}

/** The events of one type, typed. */
export const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) =>
  events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);
