/**
 * The sandbox pool between runs: at least two workers by default, waiting calls served by run in
 * turns (a run's single code step is not held behind another run's long map), and the queue
 * limit refusing the run that filled it rather than the next one.
 */
import type { Json, StepCall } from '@weft/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { FairQueue } from './fair-queue.ts';
import { createExecutorRegistry, type ExecutorRegistry } from './index.ts';
import { DEFAULT_SANDBOX_WORKERS, runInSandbox, SandboxPool, SandboxQueueFullError } from './sandbox.ts';
import { failure } from './test-support.ts';

const busy = (ms: number) => `const end = Date.now() + ${ms}; while (Date.now() < end) {} return 'done';`;

describe('the sandbox pool between runs', () => {
  let registry: ExecutorRegistry | undefined;
  let pool: SandboxPool | undefined;
  afterEach(() => {
    registry?.close?.();
    pool?.close();
  });

  it('has at least two workers by default', () => {
    expect(DEFAULT_SANDBOX_WORKERS).toBeGreaterThanOrEqual(2);
    pool = new SandboxPool();
    expect(pool.size).toBeGreaterThanOrEqual(2);
  });

  it("serves run B's one code step before run A's queued map drains", async () => {
    registry = createExecutorRegistry({ env: {}, sandbox: { workers: 2, timeoutMs: 10_000 } });
    const code = (source: string): StepCall => ({
      kind: 'code',
      input: { source, args: null, input: null, steps: {} },
    });
    const execute = (runId: string, stepId: string, source: string) =>
      registry!.execute(code(source), { signal: new AbortController().signal, runId, stepId, emitDelta: () => {} });
    // Both workers up, so what follows waits in the queue rather than for a worker's start.
    await Promise.all([execute('warm', 'a', 'return 1;'), execute('warm', 'b', 'return 1;')]);

    const settled: string[] = [];
    const track = (name: string, call: Promise<Json>) => call.then(() => settled.push(name));
    const calls = Array.from({ length: 20 }, (_, i) => track(`A${i}`, execute('run-a', `each[${i}]/work`, busy(100))));
    calls.push(track('B', execute('run-b', 'only', 'return 1;')));
    await Promise.all(calls);

    // In turns, B is the fourth call dispatched (two of A's were running, one more of A's came
    // first in line); one queue for all would have run every one of A's calls before it.
    expect(settled.indexOf('B')).toBeLessThan(5);
    expect(settled).toHaveLength(21);
  });

  it("refuses the run that filled the queue, not another run's first call", async () => {
    pool = new SandboxPool({ size: 1, maxQueue: 2 });
    expect(await runInSandbox('return 1;', {}, {}, { pool })).toBe(1); // the worker is up
    const controller = new AbortController();
    const options = (runId: string) => ({ pool, runId, signal: controller.signal });
    const running = failure(runInSandbox(busy(5_000), {}, { timeoutMs: 10_000 }, options('run-a')));
    const queuedA = [1, 2].map(() => failure(runInSandbox('return 2;', {}, {}, options('run-a'))));
    const refusedA = await failure(runInSandbox('return 3;', {}, {}, options('run-a')));
    expect(refusedA).toBeInstanceOf(SandboxQueueFullError);
    const firstB = failure(runInSandbox('return 4;', {}, {}, options('run-b')));
    expect(pool.stats().queued).toBe(3);
    const secondB = await failure(runInSandbox('return 5;', {}, {}, options('run-b')));
    expect(secondB).toBeInstanceOf(SandboxQueueFullError);
    controller.abort(new Error('enough'));
    for (const call of [running, ...queuedA, firstB]) expect((await call).message).toBe('enough');
    expect(pool.stats().queued).toBe(0);
  });

  it('keeps maxQueue 0 meaning that no call waits', async () => {
    pool = new SandboxPool({ size: 1, maxQueue: 0 });
    expect(await runInSandbox('return 1;', {}, {}, { pool })).toBe(1);
    const controller = new AbortController();
    const running = failure(
      runInSandbox(busy(5_000), {}, { timeoutMs: 10_000 }, { pool, runId: 'a', signal: controller.signal }),
    );
    expect(await failure(runInSandbox('return 2;', {}, {}, { pool, runId: 'b' }))).toBeInstanceOf(
      SandboxQueueFullError,
    );
    controller.abort(new Error('enough'));
    expect((await running).message).toBe('enough');
  });
});

describe('FairQueue', () => {
  it('serves owners in turns, each in arrival order', () => {
    const queue = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3', 'a4']) queue.push('a', item);
    queue.push('b', 'b1');
    queue.push('c', 'c1');
    queue.push('b', 'b2');
    const order: string[] = [];
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) order.push(item);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
    expect(queue.size).toBe(0);
  });

  it('counts per owner and in all, through removals and a drain', () => {
    const queue = new FairQueue<string>();
    queue.push('a', 'a1');
    queue.push('a', 'a2');
    queue.push('b', 'b1');
    expect([queue.size, queue.waiting('a'), queue.waiting('b'), queue.waiting('z')]).toEqual([3, 2, 1, 0]);
    expect(queue.remove('a', 'a1')).toBe(true);
    expect(queue.remove('a', 'a1')).toBe(false);
    expect(queue.remove('b', 'a2')).toBe(false);
    expect(queue.remove('b', 'b1')).toBe(true);
    expect([queue.size, queue.waiting('a'), queue.waiting('b')]).toEqual([1, 1, 0]);
    expect(queue.drain()).toEqual(['a2']);
    expect([queue.size, queue.shift()]).toEqual([0, undefined]);
  });
});
