import type { RunEvent } from '@weft/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostTool } from '../executors/index.ts';
import type { RunStore } from '../store/types.ts';
import type { InProcessRunner } from './runner.ts';
import {
  approve,
  bothBackends,
  createRunner,
  deferred,
  duplicateKeys,
  flowOf,
  type HarnessOptions,
  waitFor,
} from './test-support.ts';

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) =>
  events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);

const gated = flowOf('gated', [
  { id: 'draft', type: 'transform', value: 'a reply' },
  { id: 'review', type: 'approval', prompt: 'Send "{{ steps.draft.output }}"?' },
  {
    id: 'route',
    type: 'branch',
    cases: [{ when: '=steps.review.output.approved', steps: [{ id: 'send', type: 'transform', value: 'sent' }] }],
    else: [{ id: 'drop', type: 'transform', value: 'dropped' }],
  },
]);
gated.output = { route: '=steps.route.output', review: '=steps.review.output' } as never;

describe.each(bothBackends())('%s: approvals and child runs', (_, backend) => {
  let store: RunStore;
  const runners: InProcessRunner[] = [];
  const runner = (options: HarnessOptions = {}, on: RunStore = store): InProcessRunner => {
    const created = createRunner(on, options);
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

  it('parks at an approval and completes when approved', async () => {
    const r = runner();
    const parked = await r.start(gated, {});
    expect(parked).toMatchObject({ status: 'waiting', waitingFor: [{ stepId: 'review', reason: 'approval' }] });
    expect((await store.getRun(parked.runId))?.status).toBe('waiting');
    expect(await store.getApproval(parked.runId, 'review')).toMatchObject({
      status: 'pending',
      prompt: 'Send "a reply"?',
    });
    const { accepted, outcome } = await approve(r, parked.runId, 'review', {
      approved: true,
      by: 'ana',
      comment: 'ok',
    });
    expect(accepted).toBe(true);
    expect(outcome).toMatchObject({
      status: 'completed',
      output: { route: 'sent', review: { approved: true, by: 'ana', comment: 'ok' } },
    });
  });

  it('takes the other branch when rejected', async () => {
    const r = runner();
    const parked = await r.start(gated, {});
    const { outcome } = await approve(r, parked.runId, 'review', { approved: false, by: 'bo' });
    expect(outcome).toMatchObject({ status: 'completed', output: { route: 'dropped', review: { approved: false } } });
  });

  it('accepts exactly one of two concurrent decisions, from two processes', async () => {
    const a = runner();
    const b = runner({}, await backend.open()); // its own connection: another process
    const parked = await a.start(gated, {});
    const [first, second] = await Promise.all([
      approve(a, parked.runId, 'review', { approved: true, by: 'a' }),
      approve(b, parked.runId, 'review', { approved: false, by: 'b' }),
    ]);
    expect([first.accepted, second.accepted].filter(Boolean)).toHaveLength(1);
    const winner = first.accepted ? 'a' : 'b';
    const run = await waitFor('the run to end', async () => {
      const row = await store.getRun(parked.runId);
      return row?.status === 'completed' ? row : undefined;
    });
    expect(run.output).toMatchObject({ review: { by: winner }, route: winner === 'a' ? 'sent' : 'dropped' });
    const events = await store.readEvents(parked.runId);
    expect(duplicateKeys(events)).toEqual([]);
    expect(ofType(events, 'approval.resolved')).toMatchObject([{ by: winner }]);
  });

  it('accepts exactly one of two concurrent decisions in one runner, and executes the run once', async () => {
    let sends = 0;
    const send: HostTool = { description: 'send', parameters: { type: 'object' }, execute: () => ++sends };
    const r = runner({ tools: { send } });
    const flow = flowOf('gated-send', [
      { id: 'review', type: 'approval', prompt: 'go?' },
      { id: 'send', type: 'tool', tool: 'send' },
    ]);
    const parked = await r.start(flow, {});
    const results = await Promise.all([
      approve(r, parked.runId, 'review', { approved: true }),
      approve(r, parked.runId, 'review', { approved: true }),
    ]);
    expect(results.filter((result) => result.accepted)).toHaveLength(1);
    expect(results.find((result) => result.accepted)?.outcome.status).toBe('completed');
    expect(sends).toBe(1);
  });

  it('a decision that arrives while the run is still executing is not lost', async () => {
    const release = deferred();
    const slow: HostTool = {
      description: 'slow',
      parameters: { type: 'object' },
      execute: async () => {
        await release.promise;
        return 'slow done';
      },
    };
    const r = runner({ tools: { slow } });
    const flow = flowOf('gate-and-work', [
      {
        id: 'both',
        type: 'parallel',
        branches: {
          ask: [{ id: 'gate', type: 'approval', prompt: 'go?' }],
          work: [{ id: 'w', type: 'tool', tool: 'slow' }],
        },
      },
    ]);
    const id = `busy-${backend.name}`;
    const running = r.start(flow, {}, { runId: id });
    await waitFor('the approval request', () => store.getApproval(id, 'both.ask/gate'));
    // The run is still executing the other branch: the decision is recorded, the run not re-entered.
    const { accepted, outcome } = await approve(r, id, 'both.ask/gate', { approved: true, by: 'early' });
    expect(accepted).toBe(true);
    expect(outcome.status).toBe('running');
    release.resolve();
    expect(await running).toMatchObject({
      status: 'completed',
      output: { ask: { approved: true, by: 'early' }, work: 'slow done' },
    });
  });

  for (const [onTimeout, expected] of [
    ['approve', { status: 'completed', output: { approved: true, by: 'timeout' } }],
    ['reject', { status: 'completed', output: { approved: false, by: 'timeout' } }],
    ['fail', { status: 'failed', error: { message: 'approval timed out after 300ms' } }],
  ] as const) {
    it(`applies onTimeout "${onTimeout}" when the deadline has passed, on resume and on recover`, async () => {
      // The process that parked the runs leaves before the deadline; another applies it.
      const parking = runner();
      const flow = flowOf(`deadline-${onTimeout}`, [
        { id: 'gate', type: 'approval', prompt: 'go?', timeout: '300ms', onTimeout },
      ]);
      const first = await parking.start(flow, {});
      const second = await parking.start(flow, {});
      expect([first.status, second.status]).toEqual(['waiting', 'waiting']);
      await parking.close();
      const r = runner();
      // The second run parked last, so its deadline is the later one.
      const approval = await store.getApproval(second.runId, 'gate');
      expect(approval?.deadline).not.toBeNull();
      await waitFor('the deadlines to pass', () => Date.now() > (approval?.deadline ?? 0) + 5);
      expect(await r.resume(first.runId)).toMatchObject(expected);
      const recovered = await r.recover();
      expect(recovered.find((o) => o.runId === second.runId)).toMatchObject(expected);
      expect(await store.getApproval(second.runId, 'gate')).toMatchObject({ status: 'timed-out' });
      const resolved = ofType(await store.readEvents(second.runId), 'approval.resolved');
      if (onTimeout !== 'fail') expect(resolved).toMatchObject([{ timedOut: true }]);
    });
  }

  it('applies the timeout by itself while the runner that parked the run is alive', async () => {
    const r = runner();
    const flow = flowOf('deadline-live', [
      { id: 'gate', type: 'approval', prompt: 'go?', timeout: '200ms', onTimeout: 'approve' },
    ]);
    const parked = await r.start(flow, {});
    expect(parked.status).toBe('waiting');
    await waitFor('the run to end', async () => (await store.getRun(parked.runId))?.status === 'completed');
    expect((await store.getRun(parked.runId))?.output).toMatchObject({ approved: true, by: 'timeout' });
  });

  const child = flowOf('child', [{ id: 'double', type: 'transform', value: '=input.n * 2' }]);
  const gatedChild = flowOf('gated-child', [
    { id: 'ok', type: 'approval', prompt: 'child asks' },
    { id: 'result', type: 'transform', value: '=steps.ok.output.approved' },
  ]);
  const parent = flowOf('parent', [
    { id: 'kid', type: 'spawn', flow: 'child', input: { n: '=input.n' } },
    { id: 'after', type: 'transform', value: '=steps.kid.output + 1' },
  ]);

  it('runs a spawn as a child run and returns its output', async () => {
    const r = runner({ flows: [child] });
    const outcome = await r.start(parent, { n: 20 });
    expect(outcome).toMatchObject({ status: 'completed', output: 41 });
    const [kid] = await store.listRuns({ parentRunId: outcome.runId });
    expect(kid).toMatchObject({
      flowId: 'child',
      parentRunId: outcome.runId,
      parentStepId: 'kid',
      status: 'completed',
    });
    expect(kid?.output).toBe(40);
    expect(ofType(await store.readEvents(outcome.runId), 'child.started')).toMatchObject([
      { stepId: 'kid', childRunId: kid?.id, flowId: 'child' },
    ]);
    expect(ofType(await store.readEvents(kid?.id ?? ''), 'run.started')).toMatchObject([
      { parentRunId: outcome.runId },
    ]);
  });

  it('parks the parent while its child waits; approving the child completes both', async () => {
    const r = runner({ flows: [gatedChild] });
    const flow = flowOf('parent-of-gated', [{ id: 'kid', type: 'spawn', flow: 'gated-child' }]);
    const parked = await r.start(flow, {});
    expect(parked).toMatchObject({ status: 'waiting', waitingFor: [{ stepId: 'kid', reason: 'child run' }] });
    const [kid] = await store.listRuns({ parentRunId: parked.runId });
    expect(kid?.status).toBe('waiting');
    const { accepted, outcome } = await approve(r, kid?.id ?? '', 'ok', { approved: true });
    expect(accepted).toBe(true);
    expect(outcome).toMatchObject({ status: 'completed', output: true });
    expect(await store.getRun(parked.runId)).toMatchObject({ status: 'completed', output: true });
  });

  it('cancelling a parent cancels its waiting child; cancelling a waiting child fails its parent', async () => {
    const r = runner({ flows: [gatedChild] });
    const flow = flowOf('parent-of-gated', [{ id: 'kid', type: 'spawn', flow: 'gated-child' }]);
    const one = await r.start(flow, {});
    await r.cancel(one.runId);
    const [kid1] = await store.listRuns({ parentRunId: one.runId });
    expect([(await store.getRun(one.runId))?.status, kid1?.status]).toEqual(['cancelled', 'cancelled']);

    const two = await r.start(flow, {});
    const [kid2] = await store.listRuns({ parentRunId: two.runId });
    await r.cancel(kid2?.id ?? '');
    expect(await store.getRun(two.runId)).toMatchObject({
      status: 'failed',
      error: { message: 'the run was cancelled' },
    });
  });
});
