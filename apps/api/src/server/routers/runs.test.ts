import { TRPCError } from '@trpc/server';
import type { RunEvent } from '@weft/engine';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  approvalFlow,
  chattyFlow,
  collect,
  greetFlow,
  type TestServer,
  testServices,
  waitForApproval,
  waitForStatus,
} from '../test-support.ts';

let server: TestServer;

beforeEach(async () => {
  server = await testServices();
  await server.services.store.flows.save(greetFlow);
  await server.services.store.flows.save(approvalFlow);
  await server.services.store.flows.save(chattyFlow);
});
afterEach(async () => {
  await server.close();
});

/** The TRPCError a call rejects with. */
async function failure(promise: Promise<unknown>): Promise<TRPCError & { issues?: { path: string }[] }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TRPCError);
    const cause = (error as TRPCError).cause as { issues?: { path: PropertyKey[] }[] } | undefined;
    const issues = cause?.issues?.map((issue) => ({ ...issue, path: issue.path.map(String).join('.') }));
    return Object.assign(error as TRPCError, issues ? { issues } : {});
  }
  throw new Error('expected the call to fail');
}

/** Unwraps `tracked()` envelopes ([id, data, symbol]) as the caller yields them. */
function untrack(item: unknown): RunEvent {
  return (Array.isArray(item) ? item[1] : item) as RunEvent;
}

describe('runs.start', () => {
  it('starts the latest version in the background and returns its id', async () => {
    const api = server.caller();
    const { runId } = await api.runs.start({ flowId: 'greet', input: { name: 'Ada' } });
    expect(runId).toMatch(/^run_/);
    expect(await waitForStatus(server.services, runId, ['completed'])).toBe('completed');
    const { run, state } = await api.runs.get({ runId });
    expect(run).toMatchObject({
      id: runId,
      flowId: 'greet',
      flowVersion: 1,
      status: 'completed',
      backend: 'inprocess',
    });
    expect(run.output).toEqual({ greeting: 'Ada' });
    expect(state.status).toBe('completed');
    expect(state.output).toEqual({ greeting: 'Ada' });
    expect(run).not.toHaveProperty('owner');
  });

  it('runs a given version', async () => {
    await server.services.store.flows.save({ ...greetFlow, name: 'Greet v2', output: '=input.name' });
    const api = server.caller();
    const { runId } = await api.runs.start({ flowId: 'greet', version: 1, input: { name: 'Ada' } });
    await waitForStatus(server.services, runId, ['completed']);
    expect((await api.runs.get({ runId })).run).toMatchObject({ flowVersion: 1, output: { greeting: 'Ada' } });
    const latest = await api.runs.start({ flowId: 'greet', input: { name: 'Bo' } });
    await waitForStatus(server.services, latest.runId, ['completed']);
    expect((await api.runs.get({ runId: latest.runId })).run).toMatchObject({ flowVersion: 2, output: 'Bo' });
  });

  it('refuses an unknown flow or version with NOT_FOUND naming it', async () => {
    const api = server.caller();
    const missing = await failure(api.runs.start({ flowId: 'nope', input: {} }));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toContain("'nope'");
    const version = await failure(api.runs.start({ flowId: 'greet', version: 9, input: {} }));
    expect(version.code).toBe('NOT_FOUND');
    expect(version.message).toContain('version 9');
  });

  it('refuses input that does not fit the flow with BAD_REQUEST naming the field', async () => {
    const api = server.caller();
    const missing = await failure(api.runs.start({ flowId: 'greet', input: {} }));
    expect(missing.code).toBe('BAD_REQUEST');
    expect(missing.issues?.map((issue) => issue.path)).toEqual(['input.name']);
    const wrong = await failure(api.runs.start({ flowId: 'greet', input: { name: 5 } }));
    expect(wrong.code).toBe('BAD_REQUEST');
    expect(wrong.issues?.map((issue) => issue.path)).toEqual(['input.name']);
    expect(await server.services.store.listRuns()).toEqual([]);
  });

  it('refuses oversized input with BAD_REQUEST', async () => {
    const big = await failure(server.caller().runs.start({ flowId: 'greet', input: { name: 'x'.repeat(1_100_000) } }));
    expect(big.code).toBe('BAD_REQUEST');
    expect(big.message).toMatch(/bytes/);
  });

  it.each<[string, unknown, string]>([
    ['a flowId of the wrong type', { flowId: 5 }, 'flowId'],
    ['an empty flowId', { flowId: '' }, 'flowId'],
    ['a version that is not a positive integer', { flowId: 'greet', version: 0 }, 'version'],
    ['an unknown backend', { flowId: 'greet', backend: 'airflow' }, 'backend'],
    ['fixtures of the wrong shape', { flowId: 'greet', fixtures: { a: 'x' } }, 'fixtures.a'],
  ])('refuses %s with BAD_REQUEST naming the field', async (_name, input, path) => {
    const error = await failure(server.caller().runs.start(input as never));
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.issues?.map((issue) => issue.path)).toContain(path);
  });
});

describe('runs.list / get', () => {
  it('lists runs with filters', async () => {
    const api = server.caller();
    const a = await api.runs.start({ flowId: 'greet', input: { name: 'A' } });
    const b = await api.runs.start({ flowId: 'ship', input: { name: 'B' } });
    await waitForStatus(server.services, a.runId, ['completed']);
    await waitForApproval(server.services, b.runId, 'gate');
    expect((await api.runs.list()).map((run) => run.id).sort()).toEqual([a.runId, b.runId].sort());
    expect((await api.runs.list({ flowId: 'greet' })).map((run) => run.id)).toEqual([a.runId]);
    expect((await api.runs.list({ status: 'waiting' })).map((run) => run.id)).toEqual([b.runId]);
    expect((await api.runs.list({ status: ['waiting', 'completed'] })).length).toBe(2);
    expect((await api.runs.list({ backend: 'temporal' })).length).toBe(0);
    expect((await api.runs.list({ since: Date.now() + 60_000 })).length).toBe(0);
    expect((await api.runs.list({ limit: 1 })).length).toBe(1);
    const bad = await failure(api.runs.list({ status: 'paused' as never }));
    expect(bad.issues?.map((issue) => issue.path)).toContain('status');
    const limit = await failure(api.runs.list({ limit: 0 }));
    expect(limit.issues?.map((issue) => issue.path)).toEqual(['limit']);
  });

  it('gets a waiting run with its state; unknown ids are NOT_FOUND', async () => {
    const api = server.caller();
    const { runId } = await api.runs.start({ flowId: 'ship', input: { name: 'B' } });
    await waitForApproval(server.services, runId, 'gate');
    const { run, state } = await api.runs.get({ runId });
    expect(run.status).toBe('waiting');
    expect(state.steps.gate?.status).toBe('waiting');
    const missing = await failure(api.runs.get({ runId: 'run_nope' }));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toContain('run_nope');
    expect((await failure(api.runs.get({} as never))).issues?.map((issue) => issue.path)).toEqual(['runId']);
  });
});

describe('runs.cancel / resume / rerun / delete', () => {
  it('cancels a waiting run; a second cancel is harmless', async () => {
    const api = server.caller();
    const { runId } = await api.runs.start({ flowId: 'ship', input: { name: 'B' } });
    await waitForApproval(server.services, runId, 'gate');
    expect(await api.runs.cancel({ runId })).toEqual({ runId, status: 'cancelled' });
    expect(await api.runs.cancel({ runId })).toEqual({ runId, status: 'cancelled' });
    expect((await api.runs.get({ runId })).state.status).toBe('cancelled');
    expect((await failure(api.runs.cancel({ runId: 'run_nope' }))).code).toBe('NOT_FOUND');
  });

  it('resumes a parked run and refuses to resume an ended one', async () => {
    const api = server.caller();
    const { runId } = await api.runs.start({ flowId: 'ship', input: { name: 'B' } });
    await waitForApproval(server.services, runId, 'gate');
    expect(await api.runs.resume({ runId })).toEqual({ runId });
    await waitForApproval(server.services, runId, 'gate');
    await api.runs.cancel({ runId });
    const ended = await failure(api.runs.resume({ runId }));
    expect(ended.code).toBe('CONFLICT');
    expect(ended.message).toContain('cancelled');
    expect((await failure(api.runs.resume({ runId: 'run_nope' }))).code).toBe('NOT_FOUND');
  });

  it('re-runs with the same flow version, input and fixtures under a new id', async () => {
    const api = server.caller();
    const first = await api.runs.start({ flowId: 'greet', input: { name: 'Ada' } });
    await waitForStatus(server.services, first.runId, ['completed']);
    await server.services.store.flows.save({ ...greetFlow, output: '=input.name' });
    const again = await api.runs.rerun({ runId: first.runId });
    expect(again.runId).not.toBe(first.runId);
    await waitForStatus(server.services, again.runId, ['completed']);
    const { run } = await api.runs.get({ runId: again.runId });
    expect(run).toMatchObject({ flowVersion: 1, input: { name: 'Ada' }, output: { greeting: 'Ada' } });
    expect((await failure(api.runs.rerun({ runId: 'run_nope' }))).code).toBe('NOT_FOUND');
  });

  it('deletes an ended run and refuses a live one with CONFLICT', async () => {
    const api = server.caller();
    const { runId } = await api.runs.start({ flowId: 'ship', input: { name: 'B' } });
    await waitForApproval(server.services, runId, 'gate');
    const live = await failure(api.runs.delete({ runId }));
    expect(live.code).toBe('CONFLICT');
    expect(live.message).toContain('cancel it');
    await api.runs.cancel({ runId });
    expect(await api.runs.delete({ runId })).toEqual({ runId, deleted: true });
    expect((await failure(api.runs.get({ runId }))).code).toBe('NOT_FOUND');
    expect((await failure(api.runs.delete({ runId }))).code).toBe('NOT_FOUND');
  });
});

describe('runs.events', () => {
  it('replays stored events, then follows live ones, exactly the stored sequence', async () => {
    const api = server.caller();
    const { runId } = await api.runs.start({ flowId: 'ship', input: { name: 'B' } });
    await waitForApproval(server.services, runId, 'gate');
    const stream = await api.runs.events({ runId });
    const seen: RunEvent[] = [];
    const done = (async () => {
      for await (const item of stream) seen.push(untrack(item));
    })();
    // The replayed part arrives, then the decision makes the rest live.
    await expect.poll(() => seen.some((event) => event.type === 'approval.requested')).toBe(true);
    expect(server.services.bus.subscriberCount(runId)).toBe(1);
    await api.approvals.decide({ runId, stepId: 'gate', approved: true });
    await done;
    const stored = await server.services.store.readEvents(runId);
    expect(seen).toEqual(stored);
    expect(stored.at(-1)?.type).toBe('run.completed');
    expect(server.services.bus.subscriberCount(runId)).toBe(0);
  });

  it('yields each event tracked by its seq, and resumes after a lastEventId', async () => {
    const api = server.caller();
    const { runId } = await api.runs.start({ flowId: 'greet', input: { name: 'A' } });
    await waitForStatus(server.services, runId, ['completed']);
    const stored = await server.services.store.readEvents(runId);
    const all = await collect(await api.runs.events({ runId, lastEventId: null }));
    expect(all.map((item) => (item as unknown as unknown[])[0])).toEqual(stored.map((event) => String(event.seq)));
    const rest = await collect(await api.runs.events({ runId, lastEventId: '2' }));
    expect(rest.map(untrack)).toEqual(stored.slice(2));
  });

  it('ends a cancelled parked run with its run.cancelled', async () => {
    const api = server.caller();
    const { runId } = await api.runs.start({ flowId: 'ship', input: { name: 'B' } });
    await waitForApproval(server.services, runId, 'gate');
    const seen: RunEvent[] = [];
    const done = (async () => {
      for await (const item of await api.runs.events({ runId })) seen.push(untrack(item));
    })();
    await expect.poll(() => seen.length).toBeGreaterThan(0);
    await api.runs.cancel({ runId });
    await done;
    expect(seen).toEqual(await server.services.store.readEvents(runId));
    expect(seen.at(-1)?.type).toBe('run.cancelled');
  });

  it('coalesces token deltas of one step; the text and every other event are intact', async () => {
    const api = server.caller();
    const { runId } = await api.runs.start({ flowId: 'chatty', input: { name: 'Ada' } });
    await waitForApproval(server.services, runId, 'gate');
    const seen: RunEvent[] = [];
    const done = (async () => {
      for await (const item of await api.runs.events({ runId })) seen.push(untrack(item));
    })();
    await expect.poll(() => seen.some((event) => event.type === 'approval.requested')).toBe(true);
    await api.approvals.decide({ runId, stepId: 'gate', approved: true });
    await done;
    const stored = await server.services.store.readEvents(runId);
    const deltas = (events: RunEvent[]) =>
      events.flatMap((event) => (event.type === 'step.delta' ? [`${event.stepId}:${event.text}`] : []));
    const text = (events: RunEvent[]) => events.map((e) => (e.type === 'step.delta' ? e.text : '')).join('');
    expect(seen.filter((event) => event.type !== 'step.delta')).toEqual(
      stored.filter((event) => event.type !== 'step.delta'),
    );
    expect(text(seen)).toBe(text(stored));
    expect(deltas(stored).length).toBeGreaterThan(1);
    // The replayed first turn's deltas came at once: one event.
    const firstTurn = seen.filter((event) => event.type === 'step.delta' && event.stepId.startsWith('first'));
    expect(firstTurn.length).toBe(1);
    const seqs = seen.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it('refuses an unknown run with NOT_FOUND and a bad lastEventId with BAD_REQUEST', async () => {
    const api = server.caller();
    const missing = await failure(collect(await api.runs.events({ runId: 'run_nope' })));
    expect(missing.code).toBe('NOT_FOUND');
    const bad = await failure(api.runs.events({ runId: 'run_nope', lastEventId: 'abc' }));
    expect(bad.code).toBe('BAD_REQUEST');
    expect(bad.issues?.map((issue) => issue.path)).toEqual(['lastEventId']);
  });
});

describe('runs.statusChanges', () => {
  it('streams status changes of runs, optionally of one flow', async () => {
    const api = server.caller();
    const controller = new AbortController();
    const changes: { runId: string; status: string; flowId: string }[] = [];
    const stream = await server.caller(null, controller.signal).runs.statusChanges({ flowId: 'ship' });
    const done = (async () => {
      for await (const change of stream) changes.push(change);
    })();
    const other = await api.runs.start({ flowId: 'greet', input: { name: 'A' } });
    const { runId } = await api.runs.start({ flowId: 'ship', input: { name: 'B' } });
    await waitForApproval(server.services, runId, 'gate');
    await waitForStatus(server.services, other.runId, ['completed']);
    await api.approvals.decide({ runId, stepId: 'gate', approved: false });
    await waitForStatus(server.services, runId, ['completed']);
    await expect
      .poll(() => changes.map((change) => change.status))
      .toEqual(['running', 'waiting', 'running', 'completed']);
    expect(changes.every((change) => change.runId === runId && change.flowId === 'ship')).toBe(true);
    controller.abort();
    await done;
  });
});
