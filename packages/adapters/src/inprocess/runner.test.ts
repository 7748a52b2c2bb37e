/**
 * The in-process runner executing a run: retries and per-call timeouts, the determinism check
 * when a resumed run is given a changed flow, and group commit with the event log it writes.
 * Cancellation is in runner-cancellation.test.ts; closing, durable sleep and recovery in
 * runner-recovery.test.ts.
 */
import { NonRetryableError } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { approve, duplicateKeys, flowOf, ofType, sqliteRunnerHarness, tool } from './test-support.ts';

const { store, runner } = sqliteRunnerHarness();

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
    const { outcome } = await approve(r, parked.runId, 'gate', { approved: true });
    expect(outcome).toMatchObject({ status: 'completed', output: 1 });
    const events = await store.readEvents(parked.runId);
    expect(duplicateKeys(events)).toEqual([]);
    for (const type of ['run.started', 'approval.requested', 'run.completed'] as const)
      expect(ofType(events, type)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'step.started' && e.stepId === 'a')).toHaveLength(1);
  });
});
