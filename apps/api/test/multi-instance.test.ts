/**
 * Two real `weft serve` processes on one PostgreSQL database: a run started through A is
 * watched live through B over SSE, an approval given through B resumes it, and both processes'
 * subscribers (run events and status changes) see the whole run, live, across the processes.
 */

import { FEED_APPLICATION_NAME } from '@weft/adapters/store';
import type { RunEvent } from '@weft/engine';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StatusChange } from '../src/server/events/bus.ts';
import { approvalFlow } from '../src/server/test-support.ts';
import { client, type Server, serve, shutdown } from './serve-process.ts';

const ADMIN_URLS = process.env.WEFT_TEST_PG_URL
  ? [process.env.WEFT_TEST_PG_URL]
  : ['postgres://postgres@127.0.0.1:5432/test', 'postgres://root@127.0.0.1:5432/test'];
const database = `weft_multi_${Math.random().toString(36).slice(2, 10)}`;

async function admin(): Promise<{ client: pg.Client; url: URL }> {
  const failures: string[] = [];
  for (const url of ADMIN_URLS) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      return { client, url: new URL(url) };
    } catch (error) {
      failures.push(`${url}: ${(error as Error).message}`);
      await client.end().catch(() => undefined);
    }
  }
  throw new Error(`PostgreSQL is not reachable (${failures.join('; ')})`);
}

/** Follows one run's events through a server until the run ends. */
function watchRun(server: Server, runId: string) {
  const seen: RunEvent[] = [];
  const errors: unknown[] = [];
  let ended!: () => void;
  const done = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const subscription = client(server).runs.events.subscribe(
    { runId, lastEventId: null },
    {
      onData: (item) => seen.push(item.data as RunEvent),
      onError: (error) => errors.push(error),
      onComplete: () => ended(),
    },
  );
  return { seen, errors, done, stop: () => subscription.unsubscribe() };
}

/** Collects status changes through a server. */
function watchStatus(server: Server) {
  const seen: StatusChange[] = [];
  const errors: unknown[] = [];
  const subscription = client(server).runs.statusChanges.subscribe(undefined, {
    onData: (change) => seen.push(change as StatusChange),
    onError: (error) => errors.push(error),
  });
  return { seen, errors, stop: () => subscription.unsubscribe() };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)),
  ]);
}

let databaseUrl = '';
let a: Server | undefined;
let b: Server | undefined;

beforeAll(async () => {
  const { client: pgAdmin, url } = await admin();
  try {
    await pgAdmin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await pgAdmin.end();
  }
  url.pathname = `/${database}`;
  databaseUrl = url.toString();
  // One at a time: the first creates the schema (migrations), the second finds it.
  a = await serve('A', { databaseUrl });
  b = await serve('B', { databaseUrl });
});

afterAll(async () => {
  const codes = await Promise.all([shutdown(a), shutdown(b)]);
  if (databaseUrl !== '') {
    const { client: pgAdmin } = await admin();
    try {
      await pgAdmin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    } finally {
      await pgAdmin.end();
    }
  }
  expect(codes).toEqual([0, 0]);
});

it('a run started through A is watched live through B, and an approval through B resumes it', async () => {
  const viaA = client(a!);
  const viaB = client(b!);

  // Status subscribers on both sides before the run exists: whatever they see of it came live.
  const statusB = watchStatus(b!);
  const statusA = watchStatus(a!);
  // The SSE connections are open once a server answers anything else after them; give them a beat.
  await new Promise((resolve) => setTimeout(resolve, 300));

  await viaA.flows.create.mutate({ doc: approvalFlow });
  // B sees the flow A saved: one database.
  expect((await viaB.flows.get.query({ id: approvalFlow.id })).doc).toMatchObject({ id: approvalFlow.id });

  const { runId } = await viaA.runs.start.mutate({ flowId: approvalFlow.id, input: { name: 'rocket' } });

  // Watched through B (and through A, to see B's events cross back).
  const watchB = watchRun(b!, runId);
  const watchA = watchRun(a!, runId);
  await expect
    .poll(() => watchB.seen.some((event) => event.type === 'approval.requested'), { timeout: 10_000 })
    .toBe(true);
  // B learnt live, from A's NOTIFY, that the run went waiting (status changes are never replayed).
  await expect
    .poll(() => statusB.seen.some((change) => change.runId === runId && change.status === 'waiting'), {
      timeout: 10_000,
    })
    .toBe(true);
  expect(watchB.seen.some((event) => event.type === 'run.completed')).toBe(false);
  const beforeDecision = watchB.seen.length;

  const pending = await viaB.approvals.list.query({ runId });
  expect(pending.map((approval) => approval.stepId)).toEqual(['gate']);
  const decision = await viaB.approvals.decide.mutate({ runId, stepId: 'gate', approved: true, comment: 'go' });
  expect(decision).toMatchObject({ accepted: true, approved: true });

  await within(Promise.all([watchB.done, watchA.done]), 15_000, 'both subscriptions end with the run');
  watchA.stop();
  watchB.stop();

  // The rest of the run arrived through B's open subscription, through run.completed.
  expect(watchB.seen.length).toBeGreaterThan(beforeDecision);
  expect(watchB.seen.slice(beforeDecision).map((event) => event.type)).toContain('approval.resolved');
  expect(watchB.seen.at(-1)?.type).toBe('run.completed');

  // Exactly the stored sequence, through either process.
  // The runs row can trail the run.completed event by a moment (it is settled when the runner lets go).
  await expect
    .poll(async () => (await viaA.runs.get.query({ runId })).run.status, { timeout: 5_000 })
    .toBe('completed');
  const { run, state } = await viaA.runs.get.query({ runId });
  const stored = await storedEvents(runId);
  expect(watchB.seen).toEqual(stored);
  expect(watchA.seen).toEqual(stored);
  expect(watchB.errors).toEqual([]);
  expect(watchA.errors).toEqual([]);

  // The decision made through B reached the run: its output, and who decided.
  expect(run.status).toBe('completed');
  expect(run.output).toEqual({ shipped: true });
  expect(state.status).toBe('completed');
  const resolved = stored.find((event) => event.type === 'approval.resolved');
  expect(resolved).toMatchObject({ stepId: 'gate', approved: true, by: 'api', comment: 'go' });

  // Both processes' list subscribers saw the run go waiting, then completed.
  for (const status of [statusB, statusA]) {
    await expect
      .poll(() => status.seen.some((change) => change.runId === runId && change.status === 'completed'), {
        timeout: 10_000,
      })
      .toBe(true);
    const mine = status.seen.filter((change) => change.runId === runId).map((change) => change.status);
    expect(mine.indexOf('waiting')).toBeLessThan(mine.lastIndexOf('completed'));
    expect(mine.filter((s) => s === 'completed')).toHaveLength(1);
    expect(status.errors).toEqual([]);
    status.stop();
  }
}, 30_000);

it('keeps crossing processes after the LISTEN connections are cut (reconnect)', async () => {
  const { client: pgAdmin } = await admin();
  let cut: number;
  try {
    const result = await pgAdmin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2',
      [database, FEED_APPLICATION_NAME],
    );
    cut = result.rowCount ?? 0;
  } finally {
    await pgAdmin.end();
  }
  expect(cut).toBe(2);

  const statusB = watchStatus(b!);
  await new Promise((resolve) => setTimeout(resolve, 300));
  // Started (and parked) through A while its bus may still be reconnecting: the notice waits.
  const { runId } = await client(a!).runs.start.mutate({ flowId: approvalFlow.id, input: { name: 'again' } });
  await expect
    .poll(() => statusB.seen.some((change) => change.runId === runId && change.status === 'waiting'), {
      timeout: 10_000,
    })
    .toBe(true);
  expect(statusB.errors).toEqual([]);
  statusB.stop();
  await client(a!).runs.cancel.mutate({ runId });
}, 20_000);

/** The run's events as stored, read straight from the database. */
async function storedEvents(runId: string): Promise<RunEvent[]> {
  const { openStore } = await import('@weft/adapters/store');
  const store = await openStore({ url: databaseUrl });
  try {
    return await store.readEvents(runId);
  } finally {
    await store.close();
  }
}
