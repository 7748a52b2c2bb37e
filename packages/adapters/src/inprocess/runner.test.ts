import { NonRetryableError, type RunEvent } from '@weft/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostTool } from '../executors/index.ts';
import type { RunStore } from '../store/types.ts';
import type { InProcessRunner } from './runner.ts';
import {
  createRunner,
  deferred,
  duplicateKeys,
  flowOf,
  type HarnessOptions,
  sqliteFileBackend,
  waitFor,
} from './test-support.ts';

const backend = sqliteFileBackend();
let store: RunStore;
const runners: InProcessRunner[] = [];
const runner = (options: HarnessOptions = {}): InProcessRunner => {
  const created = createRunner(store, options);
  runners.push(created);
  return created;
};

beforeAll(async () => {
  await backend.setup();
  store = await backend.open();
});
afterAll(async () => {
  for (const created of runners) await created.close();
  await backend.teardown();
});

let counter = 0;
const runId = (name: string) => `${name}-${++counter}`;

function tool(execute: HostTool['execute']): HostTool {
  return { description: 'test tool', parameters: { type: 'object' }, execute };
}

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) =>
  events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);

describe('retries and timeouts', () => {
  it('retries a failing call with backoff and reports each retry', async () => {
    let calls = 0;
    const flaky = tool(() => {
      calls++;
      if (calls <= 2) throw new Error(`flaky failure ${calls}`);
      return { ok: true, calls };
    });
    const r = runner({ tools: { flaky } });
    const flow = flowOf('retry', [
      {
        id: 'call',
        type: 'tool',
        tool: 'flaky',
        retry: { maxAttempts: 3, backoff: 'exponential', initialDelay: '2ms' },
      },
    ]);
    const outcome = await r.start(flow, {});
    expect(outcome).toMatchObject({ status: 'completed', output: { ok: true, calls: 3 } });
    expect(calls).toBe(3);
    const retrying = ofType(await store.readEvents(outcome.runId), 'step.retrying');
    expect(
      retrying.map(({ stepId, attempt, delayMs, error }) => ({ stepId, attempt, delayMs, message: error.message })),
    ).toEqual([
      { stepId: 'call', attempt: 1, delayMs: 2, message: 'flaky failure 1' },
      { stepId: 'call', attempt: 2, delayMs: 4, message: 'flaky failure 2' },
    ]);
  });

  it('fails at once on a NonRetryableError, whatever the retry policy', async () => {
    let calls = 0;
    const broken = tool(() => {
      calls++;
      throw new NonRetryableError('the account is closed');
    });
    const r = runner({ tools: { broken } });
    const flow = flowOf('no-retry', [
      { id: 'call', type: 'tool', tool: 'broken', retry: { maxAttempts: 5, backoff: 'fixed', initialDelay: '1ms' } },
    ]);
    const outcome = await r.start(flow, {});
    expect(outcome.status).toBe('failed');
    expect(outcome.error?.message).toBe('the account is closed');
    expect(calls).toBe(1);
    const events = await store.readEvents(outcome.runId);
    expect(ofType(events, 'step.retrying')).toEqual([]);
    expect(ofType(events, 'run.failed')[0]?.error.message).toBe('the account is closed');
  });

  it('times out a call that hangs, names the step, and retries it per policy', async () => {
    const signals: AbortSignal[] = [];
    // Ignores its signal on purpose: the timeout must not depend on the tool's cooperation.
    const hang = tool((_args, { signal }) => {
      signals.push(signal);
      return new Promise(() => {});
    });
    const r = runner({ tools: { hang } });
    const flow = flowOf('timeout', [
      {
        id: 'stuck',
        type: 'tool',
        tool: 'hang',
        timeout: '40ms',
        retry: { maxAttempts: 2, backoff: 'fixed', initialDelay: '1ms' },
      },
    ]);
    const outcome = await r.start(flow, {});
    expect(outcome.status).toBe('failed');
    expect(outcome.error?.message).toBe("step 'stuck' timed out after 40 ms (after 2 attempts)");
    expect(signals).toHaveLength(2);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    const events = await store.readEvents(outcome.runId);
    expect(ofType(events, 'step.retrying').map((event) => event.error.name)).toEqual(['StepTimeoutError']);
    expect(ofType(events, 'step.failed')[0]?.error.message).toContain("step 'stuck' timed out");
  });
});

describe('cancellation', () => {
  for (const honours of [true, false]) {
    it(`cancels a running run and aborts the in-flight call (tool ${honours ? 'honours' : 'ignores'} its signal)`, async () => {
      const entered = deferred<AbortSignal>();
      const block = tool(
        (_args, { signal }) =>
          new Promise((_resolve, reject) => {
            entered.resolve(signal);
            if (honours) signal.addEventListener('abort', () => reject(signal.reason));
          }),
      );
      const r = runner({ tools: { block } });
      const id = runId('cancel');
      const flow = flowOf('cancel', [
        { id: 'slow', type: 'tool', tool: 'block' },
        { id: 'after', type: 'transform', value: 'never' },
      ]);
      const running = r.start(flow, {}, { runId: id });
      const signal = await entered.promise;
      await r.cancel(id);
      const outcome = await running;
      expect(outcome.status).toBe('cancelled');
      expect(signal.aborted).toBe(true);
      expect((await store.getRun(id))?.status).toBe('cancelled');
      const events = await store.readEvents(id);
      expect(ofType(events, 'run.cancelled')).toHaveLength(1);
      expect(events.some((event) => 'stepId' in event && event.stepId === 'after')).toBe(false);
    });
  }

  it('cancels a parked run; a later decision is not accepted', async () => {
    const r = runner();
    const flow = flowOf('cancel-parked', [
      { id: 'gate', type: 'approval', prompt: 'go?' },
      { id: 'after', type: 'transform', value: 'never' },
    ]);
    const parked = await r.start(flow, {});
    expect(parked.status).toBe('waiting');
    await r.cancel(parked.runId);
    expect((await store.getRun(parked.runId))?.status).toBe('cancelled');
    expect(ofType(await store.readEvents(parked.runId), 'run.cancelled')).toHaveLength(1);
    const late = await r.approve(parked.runId, 'gate', { approved: true });
    expect(late.accepted).toBe(false);
    expect(late.outcome.status).toBe('cancelled');
  });
});

describe('cancellation that races other endings', () => {
  it('a cancel wins over a branch that parked at the same time', async () => {
    const entered = deferred();
    const block = tool(
      (_args, { signal }) =>
        new Promise((_resolve, reject) => {
          entered.resolve();
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    );
    const r = runner({ tools: { block } });
    const id = runId('cancel-vs-park');
    const flow = flowOf('cancel-vs-park', [
      {
        id: 'both',
        type: 'parallel',
        branches: {
          ask: [{ id: 'gate', type: 'approval', prompt: 'go?' }],
          work: [{ id: 'w', type: 'tool', tool: 'block' }],
        },
      },
    ]);
    const running = r.start(flow, {}, { runId: id });
    await entered.promise;
    await waitFor('the approval request', () => store.getApproval(id, 'both.ask/gate'));
    await r.cancel(id);
    expect((await running).status).toBe('cancelled');
    expect((await store.getRun(id))?.status).toBe('cancelled');
  });

  it('cancelling a parent stops the child it is executing inline', async () => {
    const entered = deferred<AbortSignal>();
    const block = tool(
      (_args, { signal }) =>
        new Promise((_resolve, reject) => {
          entered.resolve(signal);
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    );
    const child = flowOf('blocked-child', [{ id: 'w', type: 'tool', tool: 'block' }]);
    const r = runner({ tools: { block }, flows: [child] });
    const id = runId('cancel-parent');
    const running = r.start(
      flowOf('cancel-parent', [{ id: 'kid', type: 'spawn', flow: 'blocked-child' }]),
      {},
      { runId: id },
    );
    const signal = await entered.promise;
    await r.cancel(id);
    expect((await running).status).toBe('cancelled');
    expect(signal.aborted).toBe(true);
    const [kid] = await store.listRuns({ parentRunId: id });
    expect(kid?.status).toBe('cancelled');
  });

  it('a cancel from another process stands when the executing one finishes afterwards', async () => {
    const release = deferred();
    const entered = deferred();
    const wait = tool(async () => {
      entered.resolve();
      await release.promise;
      return 'finished';
    });
    const executing = runner({ tools: { wait } });
    const elsewhere = createRunner(await backend.open(), {}); // another connection, as another process would
    runners.push(elsewhere);
    const id = runId('remote-cancel');
    const running = executing.start(
      flowOf('remote-cancel', [{ id: 'w', type: 'tool', tool: 'wait' }]),
      {},
      { runId: id },
    );
    await entered.promise;
    await elsewhere.cancel(id); // not executing it here: marks it
    release.resolve();
    expect((await running).status).toBe('cancelled');
    const events = await store.readEvents(id);
    expect(ofType(events, 'run.completed')).toEqual([]);
    expect(ofType(events, 'run.cancelled')).toHaveLength(1);
    expect((await store.getRun(id))?.status).toBe('cancelled');
  });
});

describe('closing the runner', () => {
  it('does not wait for a decider that never answers; the run is left for recovery', async () => {
    const asked = deferred();
    const r = runner({
      decide: () => {
        asked.resolve();
        return new Promise(() => {});
      },
    });
    const id = runId('close-decide');
    const running = r.start(
      flowOf('close-decide', [{ id: 'gate', type: 'approval', prompt: 'go?' }]),
      {},
      { runId: id },
    );
    await asked.promise;
    await r.close();
    expect((await running).status).toBe('running');
    expect(await store.getApproval(id, 'gate')).toMatchObject({ status: 'pending' });
  });
});

describe('durable sleep', () => {
  it('journals the wake-up time first; closing the runner leaves the run for recovery, not cancelled', async () => {
    const r = runner();
    const id = runId('sleep');
    const flow = flowOf('sleepy', [{ id: 'nap', type: 'sleep', duration: '1h' }]);
    const before = Date.now();
    const running = r.start(flow, {}, { runId: id });
    const entry = await waitFor('the sleep in the journal', async () =>
      (await store.loadJournal(id)).find((e) => e.stepId === 'nap'),
    );
    const until = Date.parse((entry.output as { until: string }).until);
    expect(until).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 3_600_000);
    await r.close();
    expect((await running).status).toBe('running');
    const row = await store.getRun(id);
    expect(row).toMatchObject({ status: 'running', owner: null });
    expect(ofType(await store.readEvents(id), 'run.cancelled')).toEqual([]);
  });

  it('a resumed run sleeps only what is left of the journaled sleep', async () => {
    // As if a process died 59 min 59.8 s into a one-hour sleep: only 200 ms are left.
    const r = runner();
    const flow = flowOf('sleep-resume', [
      { id: 'nap', type: 'sleep', duration: '1h' },
      { id: 'woke', type: 'transform', value: '=steps.nap.output.until' },
    ]);
    const id = await r.create(flow, {});
    const until = new Date(Date.now() + 200).toISOString();
    await store.commit([
      {
        runId: id,
        journal: [
          {
            stepId: 'nap',
            kind: 'sleep',
            inputHash: 'sleep:3600000',
            status: 'completed',
            output: { until },
            error: null,
          },
        ],
        events: [],
      },
    ]);
    const outcome = await r.resume(id);
    expect(outcome).toMatchObject({ status: 'completed', output: until });
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(until));
  });
});

describe('recovery', () => {
  // Its own database: recover() picks up every unfinished run it finds (the 1 h sleep above too).
  const own = sqliteFileBackend();
  beforeAll(() => own.setup());
  afterAll(() => own.teardown());

  it('a closed runner leaves an in-flight run that recover() in the next runner finishes', async () => {
    const store = await own.open();
    const entered = deferred();
    const block = tool(() => {
      entered.resolve();
      return new Promise(() => {});
    });
    const first = createRunner(store, { tools: { block } });
    const id = runId('recover');
    const flow = flowOf('recover', [
      { id: 'a', type: 'transform', value: 1 },
      { id: 'slow', type: 'tool', tool: 'block' },
    ]);
    const running = first.start(flow, {}, { runId: id });
    await entered.promise;
    await first.close();
    expect((await running).status).toBe('running');
    const second = createRunner(store, { tools: { block: tool(() => 'done') } });
    const outcomes = await second.recover();
    await second.close();
    expect(outcomes).toMatchObject([{ runId: id, status: 'completed', output: 'done' }]);
    expect(duplicateKeys(await store.readEvents(id))).toEqual([]);
  });

  it('recover() resumes a waiting run whose decision was recorded by a process that died before resuming it', async () => {
    const store = await own.open();
    const child = flowOf('asks', [{ id: 'ok', type: 'approval', prompt: 'fine?' }]);
    const withChild = createRunner(store, { flows: [child] });
    const parked = await withChild.start(flowOf('waits-for-child', [{ id: 'kid', type: 'spawn', flow: 'asks' }]), {});
    const [kid] = await store.listRuns({ parentRunId: parked.runId });
    // The decision is recorded, and then nothing: no execution followed it.
    const decidedAt = Date.now() + 1; // after the park, even on a fast clock
    expect(
      await store.resolveApproval(kid?.id ?? '', 'ok', { status: 'approved', by: 'x', comment: null, at: decidedAt }),
    ).toBe(true);
    await withChild.close();
    const next = createRunner(store, { flows: [child] });
    await next.recover();
    await next.close();
    expect(await store.getRun(kid?.id ?? '')).toMatchObject({ status: 'completed' });
    expect(await store.getRun(parked.runId)).toMatchObject({
      status: 'completed',
      output: { approved: true, by: 'x' },
    });
  });

  it.each(['temporal', 'inngest'])('recover() leaves a %s run in the shared store to its engine', async (engine) => {
    const store = await own.open();
    const executed: string[] = [];
    const flow = flowOf('elsewhere', [{ id: 'effect', type: 'tool', tool: 'effect' }]);
    for (const status of ['running', 'waiting'] as const) {
      const id = runId(`${engine}-${status}`);
      await store.createRun({
        id,
        flowId: flow.id,
        flowVersion: 1,
        flow: flow as never,
        input: {},
        backend: engine,
        status,
      });
      await store.requestApproval({
        runId: id,
        stepId: 'gate',
        prompt: 'due',
        deadline: Date.now() - 1,
        now: Date.now() - 2,
      });
    }
    const next = createRunner(store, { tools: { effect: tool(() => executed.push('effect')) } });
    const outcomes = await next.recover();
    await next.close();
    expect(outcomes.filter((outcome) => outcome.runId.startsWith(engine))).toEqual([]);
    expect(executed).toEqual([]);
  });
});

describe('determinism', () => {
  const v1 = flowOf('pinned', [
    { id: 'a', type: 'tool', tool: 'echo', args: { v: 1 } },
    { id: 'gate', type: 'approval', prompt: 'go?' },
    { id: 'b', type: 'transform', value: '=steps.a.output' },
  ]);
  const echo = tool((args) => args);
  const yes = async () => ({ approved: true });

  it('fails with a DeterminismError when a replacement flow gives a recorded step other input', async () => {
    const r = runner({ tools: { echo } });
    const parked = await r.start(v1, {});
    expect(parked.status).toBe('waiting');
    const changed = flowOf('pinned', [
      { id: 'a', type: 'tool', tool: 'echo', args: { v: 2 } },
      ...(v1.steps as unknown[]).slice(1),
    ]);
    const outcome = await r.resume(parked.runId, { flow: changed, decide: yes });
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatchObject({ name: 'DeterminismError', code: 'determinism' });
    expect(outcome.error?.message).toMatch(/step 'a' was recorded with different input.*flow changed under this run/);
    expect(ofType(await store.readEvents(parked.runId), 'run.failed')[0]?.error.name).toBe('DeterminismError');
  });

  it('fails with a DeterminismError when a replacement flow no longer runs a recorded step', async () => {
    const r = runner({ tools: { echo } });
    const parked = await r.start(v1, {});
    const dropped = flowOf('pinned', [
      { id: 'gate', type: 'approval', prompt: 'go?' },
      { id: 'b', type: 'transform', value: 'x' },
    ]);
    const outcome = await r.resume(parked.runId, { flow: dropped, decide: yes });
    expect(outcome.status).toBe('failed');
    expect(outcome.error?.name).toBe('DeterminismError');
    expect(outcome.error?.message).toContain('the journal holds steps this flow no longer runs (a)');
  });

  it('resumes normally with the pinned flow, and refuses a replacement for another flow', async () => {
    const r = runner({ tools: { echo } });
    const parked = await r.start(v1, {});
    await expect(
      r.resume(parked.runId, { flow: flowOf('other', [{ id: 'x', type: 'transform', value: 1 }]) }),
    ).rejects.toThrow("runs flow 'pinned'");
    const outcome = await r.resume(parked.runId, { decide: yes });
    expect(outcome).toMatchObject({ status: 'completed', output: { v: 1 } });
  });
});

describe('group commit and the event log', () => {
  it('commits a 64-wide parallel of quick calls in far fewer transactions than steps', async () => {
    let calls = 0;
    const noop = tool(() => {
      calls++;
      return null;
    });
    const r = runner({ tools: { noop } });
    const branches = Object.fromEntries(
      Array.from({ length: 64 }, (_, i) => [`b${i}`, [{ id: `n${i}`, type: 'tool', tool: 'noop' }]]),
    );
    const before = r.committer.commits;
    const outcome = await r.start(flowOf('wide', [{ id: 'fan', type: 'parallel', branches }]), {});
    const commits = r.committer.commits - before;
    expect(outcome.status).toBe('completed');
    expect(calls).toBe(64);
    expect(await store.loadJournal(outcome.runId)).toHaveLength(64);
    // Every journal entry waits for its commit: without grouping this would be 64 or more.
    expect(commits).toBeLessThanOrEqual(8);
  });

  it('stores each keyed event exactly once across resumes', async () => {
    const echo = tool((args) => args);
    const r = runner({ tools: { echo } });
    const flow = flowOf('once', [
      { id: 'a', type: 'tool', tool: 'echo', args: { x: 1 } },
      { id: 'fan', type: 'parallel', branches: { l: [{ id: 'l1', type: 'code', source: 'return 1' }], r: [] } },
      { id: 'gate', type: 'approval', prompt: 'go?' },
      { id: 'b', type: 'transform', value: '=steps.a.output.x' },
    ]);
    const parked = await r.start(flow, {});
    expect((await r.resume(parked.runId)).status).toBe('waiting'); // replays, parks again
    const { outcome } = await r.approve(parked.runId, 'gate', { approved: true });
    expect(outcome).toMatchObject({ status: 'completed', output: 1 });
    const events = await store.readEvents(parked.runId);
    expect(duplicateKeys(events)).toEqual([]);
    for (const type of ['run.started', 'approval.requested', 'run.completed'] as const)
      expect(ofType(events, type)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'step.started' && e.stepId === 'a')).toHaveLength(1);
  });
});
