/**
 * Cancelling runs in the in-process runner: a running run (its in-flight call aborted), a parked
 * one, and a cancel that races another ending — a branch parking, a child run executing inline,
 * or the run finishing in another process.
 */
import { describe, expect, it } from 'vitest';
import { approve, deferred, flowOf, ofType, sqliteRunnerHarness, tool, waitFor } from './test-support.ts';

const { store, runner, runnerElsewhere } = sqliteRunnerHarness();

let counter = 0;
const runId = (name: string) => `${name}-${++counter}`;

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
    const late = await approve(r, parked.runId, 'gate', { approved: true });
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
    const elsewhere = await runnerElsewhere(); // another connection, as another process would
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
