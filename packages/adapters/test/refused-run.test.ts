/**
 * A run its backend does not accept ends like every other run: `failed` in its row *and* a
 * `run.failed` event last in its log, so every stream that follows it (the editor, `runs show`,
 * a chat) ends instead of showing it running forever. One real refusal per backend:
 * - in-process: the store fails to keep the run's seed (a full disk, a lost database);
 * - Inngest: the event API is unreachable (a real client sending to a closed loopback port);
 * - Temporal: a real dev server that has no such namespace.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { type Flow, flowSchema, isRunEndEvent, type RunEvent } from '@weft/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunBackend } from '../src/backends/run-backend.ts';
import { createExecutorRegistry } from '../src/executors/index.ts';
import { openInngestBackend } from '../src/inngest/backend.ts';
import { inProcessBackend } from '../src/inprocess/backend.ts';
import { InProcessRunner } from '../src/inprocess/index.ts';
import { BackendRefusedError } from '../src/service/errors.ts';
import { RunService } from '../src/service/run-service.ts';
import { followRun } from '../src/store/follow-run.ts';
import { openSqliteStore } from '../src/store/index.ts';
import type { JournalEntry, RunStore } from '../src/store/types.ts';
import { openTemporalBackend } from '../src/temporal/backend.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../src/temporal/dev-server.ts';

const flow: Flow = flowSchema.parse({
  irVersion: 1,
  id: 'refused',
  name: 'Refused',
  steps: [{ id: 'say', type: 'transform', value: '=input' }],
});

const seed: JournalEntry[] = [
  { stepId: 'say', kind: 'code', inputHash: 'h', status: 'completed', output: 'seeded', error: null },
];

/** A port nothing listens on: bound, read, closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The store, except that a commit carrying journal entries (the seed) fails. */
function failingSeedStore(store: RunStore): RunStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'commit')
        return (batches: Parameters<RunStore['commit']>[0]) =>
          batches.some((batch) => batch.journal.length > 0)
            ? Promise.reject(new Error('SQLITE_FULL: database or disk is full'))
            : target.commit(batches);
      const value = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

let temporal: TemporalDevServer | undefined;
const dirs: string[] = [];
beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  temporal = await startTemporalDevServer();
}, 15 * 60_000);
afterAll(async () => {
  await temporal?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 30_000);

interface Case {
  name: string;
  /** The service's store (what the backend writes to) and the backend, made to refuse. */
  open(store: RunStore): Promise<{ service: RunStore; backend: RunBackend }>;
  withSeed: boolean;
  reason: RegExp;
}

const cases: Case[] = [
  {
    name: 'inprocess',
    async open(store) {
      const runner = new InProcessRunner({ store, executors: createExecutorRegistry() });
      return { service: failingSeedStore(store), backend: inProcessBackend(runner) };
    },
    withSeed: true,
    reason: /inprocess did not accept the run: SQLITE_FULL/,
  },
  {
    name: 'inngest',
    async open(store) {
      const port = await closedPort();
      return {
        service: store,
        backend: openInngestBackend({ baseUrl: `http://127.0.0.1:${port}`, isDev: true, store, redeliverEveryMs: 0 }),
      };
    },
    withSeed: false,
    reason: /inngest did not accept the run/,
  },
  {
    name: 'temporal',
    async open(store) {
      if (!temporal) throw new Error('the Temporal dev server did not start');
      const backend = await openTemporalBackend({
        address: temporal.address,
        namespace: 'weft-no-such-namespace',
        store,
      });
      return { service: store, backend };
    },
    withSeed: false,
    reason: /temporal did not accept the run: .*weft-no-such-namespace/i,
  },
];

describe('a run its backend refuses', () => {
  it.each(cases)(
    'ends failed with run.failed last in its log, and its stream ends ($name)',
    async (c) => {
      const dir = mkdtempSync(join(tmpdir(), 'weft-refused-'));
      dirs.push(dir);
      const store = await openSqliteStore(join(dir, 'weft.db'));
      const { service: serviceStore, backend } = await c.open(store);
      const service = new RunService({ store: serviceStore, backends: [backend] });
      try {
        const started = service.start({ flow, input: 'hi', ...(c.withSeed ? { seed } : {}) });
        await expect(started).rejects.toBeInstanceOf(BackendRefusedError);
        await expect(started).rejects.toThrow(c.reason);

        const [run] = await store.listRuns();
        expect(run?.status).toBe('failed');
        expect(run?.error?.message).toMatch(c.reason);
        const events = await store.readEvents(run!.id);
        const last = events.at(-1) as RunEvent;
        expect(last.type).toBe('run.failed');
        expect(last.type === 'run.failed' && last.error.message).toMatch(c.reason);
        // Whoever follows it is told it ended (followRun returns after the end event).
        const followed: RunEvent[] = [];
        for await (const batch of followRun(store, run!.id, 0, { signal: AbortSignal.timeout(10_000) }))
          followed.push(...batch);
        expect(followed.some(isRunEndEvent)).toBe(true);
      } finally {
        await service.close();
        await store.close();
      }
    },
    60_000,
  );
});
