/**
 * What outlives an in-process runner: closing it leaves unfinished runs (a pending decision,
 * a journaled sleep) for recovery rather than cancelling them, and recover() in the next
 * runner finishes them — but leaves runs that belong to another engine alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRunner,
  deferred,
  duplicateKeys,
  flowOf,
  ofType,
  sqliteFileBackend,
  sqliteRunnerHarness,
  tool,
  waitFor,
} from './test-support.ts';

const { store, runner } = sqliteRunnerHarness();

let counter = 0;
const runId = (name: string) => `${name}-${++counter}`;

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
