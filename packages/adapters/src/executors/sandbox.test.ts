import { spawnSync } from 'node:child_process';
import { NonRetryableError, type StepCall } from '@weft/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { createExecutorRegistry } from './index.ts';
import { runInSandbox, SandboxPool, SandboxQueueFullError } from './sandbox.ts';

const run = (source: string, globals: Record<string, never> | Parameters<typeof runInSandbox>[1] = {}, limits = {}) =>
  runInSandbox(source, globals, limits);

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the sandbox call to fail');
}

describe('runInSandbox', () => {
  it('runs a function body with the given parameters and returns its JSON result', async () => {
    const result = await run('return { sum: args.a + args.b, who: input.name, prev: steps.s1.output };', {
      args: { a: 2, b: 3 },
      input: { name: 'Ada' },
      steps: { s1: { output: [1, 'x'] } },
    });
    expect(result).toEqual({ sum: 5, who: 'Ada', prev: [1, 'x'] });
  });

  it('returns null when the code returns nothing', async () => {
    expect(await run('const x = 1;')).toBeNull();
  });

  it('reports a syntax error with its line', async () => {
    const error = await failure(run('const a = 1;\nconst b = ;\nreturn a;'));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toMatch(/code step has a syntax error \(line 2\)/);
  });

  it('reports a thrown error with its message and line', async () => {
    const error = await failure(run('\n\nthrow new Error("no customer id");'));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe('code step threw Error: no customer id (line 3)');
  });

  it('reports a runtime type error from the author code', async () => {
    const error = await failure(run('return args.missing.deep;', { args: {} }));
    expect(error.message).toMatch(/^code step threw TypeError: .*missing|deep.*\(line 1\)$/);
  });

  it('reports a thrown non-error value', async () => {
    const error = await failure(run('throw { code: 42 };'));
    expect(error.message).toBe('code step threw {"code":42}');
  });

  it('stops an infinite loop at the time limit', async () => {
    const started = Date.now();
    const error = await failure(run('while (true) {}', {}, { timeoutMs: 200 }));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe('code step exceeded its 200 ms time limit');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('uses a 1000 ms time limit by default', async () => {
    const error = await failure(run('for (;;) {}'));
    expect(error.message).toBe('code step exceeded its 1000 ms time limit');
  });

  it('stops runaway allocation at the memory limit', async () => {
    const error = await failure(
      run('const a = []; for (;;) a.push({ n: a.length, s: "x".repeat(64) });', {}, { memoryBytes: 8 * 1024 * 1024 }),
    );
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe('code step exceeded its 8 MiB memory limit');
  });

  it('stops runaway recursion with a clear error', async () => {
    const error = await failure(run('function f(n) { return f(n + 1) + 1; } return f(0);'));
    expect(error.message).toMatch(/code step exceeded the maximum call stack size/);
  });

  it('keeps working after the limits were hit', async () => {
    await failure(run('const a = []; for (;;) a.push({});', {}, { memoryBytes: 4 * 1024 * 1024 }));
    await failure(run('function f() { return f(); } f();'));
    await failure(run('for (;;) {}', {}, { timeoutMs: 50 }));
    expect(await run('return args * 2;', { args: 21 })).toBe(42);
  });

  it('refuses async code with an explanation', async () => {
    const error = await failure(run('return Promise.resolve(1);'));
    expect(error.message).toMatch(/returned a Promise: async code .* isn't supported/);
    const asyncFn = await failure(run('return (async () => 1)();'));
    expect(asyncFn.message).toMatch(/returned a Promise/);
  });

  it("refuses a result over its byte limit in the worker, with the caller's error and the size", async () => {
    const tooLarge = (bytes: number) => new NonRetryableError(`too large: ${bytes}`);
    const limit = { maxBytes: 1000, tooLarge };
    const error = await failure(runInSandbox("return 'x'.repeat(2000)", {}, {}, { resultLimit: limit }));
    expect(error.message).toBe('too large: 2002');
    // At the limit exactly, the result comes back.
    expect(await runInSandbox("return 'x'.repeat(998)", {}, {}, { resultLimit: limit })).toHaveLength(998);
  });

  it('refuses results that are not JSON', async () => {
    expect((await failure(run('return () => 1;'))).message).toBe('code step returned a function, which is not JSON');
    expect((await failure(run('return 10n;'))).message).toBe('code step returned a bigint, which is not JSON');
    const cyclic = await failure(run('const a = {}; a.self = a; return a;'));
    expect(cyclic.message).toMatch(/code step returned a value JSON cannot encode/);
  });

  it('has no access to the host: no require, process or fetch', async () => {
    expect(await run('return [typeof require, typeof process, typeof fetch, typeof globalThis.Deno];')).toEqual([
      'undefined',
      'undefined',
      'undefined',
      'undefined',
    ]);
  });

  it('isolates calls from each other', async () => {
    await run('globalThis.leak = 1; Object.prototype.polluted = true;');
    expect(await run('return [typeof leak, ({}).polluted === undefined];')).toEqual(['undefined', true]);
  });

  it('names the code in errors with the given label', async () => {
    const error = await failure(runInSandbox('throw new Error("x")', { args: null }, { label: 'tool "lookup"' }));
    expect(error.message).toBe('tool "lookup" threw Error: x (line 1)');
  });
});

// The audit's findings. Each of these failed when QuickJS ran on the main thread with only its
// own memory limit: the allocations succeeded (1 GB of RSS), the native loop ran ~11 s.
describe('limits that hold for every kind of allocation and for time', () => {
  // A generous time limit, so only the memory limit can stop these (QuickJS's own limit
  // undercounts in WebAssembly builds: it sees 8 bytes per allocation, whatever its size).
  const roomy = { timeoutMs: 10_000 };

  it('stops big strings at the memory limit', async () => {
    const source = "const a = []; for (let i = 0; i < 1000; i++) a.push('x'.repeat(1e6)); return a.length;";
    const error = await failure(run(source, {}, roomy));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe('code step exceeded its 32 MiB memory limit');
  });

  it.each([
    ['Uint8Arrays', 'new Uint8Array(1e6)'],
    ['Float64Arrays', 'new Float64Array(125000)'],
    ['ArrayBuffers', 'new ArrayBuffer(1e6)'],
    ['filled arrays', 'new Array(1e5).fill(i)'],
  ])('stops 1000 × 1 MB of %s at the memory limit', async (_, allocation) => {
    const source = `const a = []; for (let i = 0; i < 1000; i++) a.push(${allocation}); return a.length;`;
    const error = await failure(run(source, {}, { ...roomy, memoryBytes: 16 * 1024 * 1024 }));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe('code step exceeded its 16 MiB memory limit');
  });

  it('stops a loop of long native operations at the time limit', async () => {
    // Each 'x'.repeat(1e7) is tens of ms inside QuickJS, where its interrupt handler never runs.
    const source = "let n = 0; for (let i = 0; i < 200; i++) n += 'x'.repeat(1e7).length; return n;";
    const error = await failure(run(source, {}, { timeoutMs: 300 }));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe('code step exceeded its 300 ms time limit');
  });
});

describe('the worker pool', () => {
  const busy = (ms: number) => `const end = Date.now() + ${ms}; while (Date.now() < end) {} return 'done';`;
  let pool: SandboxPool | undefined;
  afterEach(() => pool?.close());

  it('keeps the event loop turning while code runs', async () => {
    await run('return 1;'); // a ready worker: what is counted is the call, not a worker's start
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    try {
      expect(await run(busy(900), {}, { timeoutMs: 10_000 })).toBe('done');
    } finally {
      clearInterval(timer);
    }
    // ~90 when the loop is free; 0 when the call blocks it.
    expect(ticks).toBeGreaterThanOrEqual(10);
  });

  it('refuses a call when the queue is full, naming the limit, as a retryable error', async () => {
    pool = new SandboxPool({ size: 1, maxQueue: 1 });
    expect(await runInSandbox('return 1;', {}, {}, { pool })).toBe(1); // the worker is up
    const controller = new AbortController();
    const first = failure(runInSandbox(busy(5_000), {}, { timeoutMs: 10_000 }, { pool, signal: controller.signal }));
    const second = runInSandbox('return 2;', {}, {}, { pool });
    const third = await failure(runInSandbox('return 3;', {}, {}, { pool }));
    expect(third).toBeInstanceOf(SandboxQueueFullError);
    expect(third).not.toBeInstanceOf(NonRetryableError);
    expect(third.message).toBe(
      'code step: the code sandbox is busy (1 worker running, 1 call waiting, the most the queue holds: sandbox.maxQueue = 1); try again later',
    );
    controller.abort(new Error('enough'));
    expect((await first).message).toBe('enough');
    expect(await second).toBe(2);
  });

  it('abandons a running call when its signal aborts, and replaces the worker', async () => {
    pool = new SandboxPool({ size: 1 });
    expect(await runInSandbox('return 1;', {}, {}, { pool })).toBe(1);
    const controller = new AbortController();
    const call = runInSandbox(busy(5_000), {}, { timeoutMs: 10_000 }, { pool, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('run cancelled')), 50);
    expect((await failure(call)).message).toBe('run cancelled');
    expect(pool.stats()).toMatchObject({ workers: 0, busy: 0 });
    expect(await runInSandbox('return args + 1;', { args: 41 }, {}, { pool })).toBe(42);
    expect(pool.stats()).toMatchObject({ workers: 1, started: 2 });
  });

  it('drops a queued call whose signal aborts, and runs the rest', async () => {
    pool = new SandboxPool({ size: 1 });
    expect(await runInSandbox('return 1;', {}, {}, { pool })).toBe(1);
    const controller = new AbortController();
    const running = runInSandbox(busy(300), {}, {}, { pool });
    const dropped = failure(runInSandbox('return 2;', {}, {}, { pool, signal: controller.signal }));
    const after = runInSandbox('return 3;', {}, {}, { pool });
    expect(pool.stats().queued).toBe(2);
    controller.abort(new Error('step timed out'));
    expect(pool.stats().queued).toBe(1);
    expect((await dropped).message).toBe('step timed out');
    expect([await running, await after]).toEqual(['done', 3]);
    expect(pool.stats().started).toBe(1);
  });

  it('replaces a worker killed at its deadline, and the next call succeeds', async () => {
    pool = new SandboxPool({ size: 1 });
    const source = "let n = 0; for (let i = 0; i < 200; i++) n += 'x'.repeat(1e7).length; return n;";
    const error = await failure(runInSandbox(source, {}, { timeoutMs: 200 }, { pool }));
    expect(error.message).toBe('code step exceeded its 200 ms time limit');
    expect(await runInSandbox('return "next";', {}, {}, { pool })).toBe('next');
    expect(pool.stats()).toMatchObject({ workers: 1, started: 2 });
  });

  it('replaces a worker after a memory failure, and the next call succeeds', async () => {
    pool = new SandboxPool({ size: 1 });
    const hog = 'const a = []; for (;;) a.push(new Uint8Array(1e6));';
    expect((await failure(runInSandbox(hog, {}, {}, { pool }))).message).toBe(
      'code step exceeded its 32 MiB memory limit',
    );
    expect(await runInSandbox('return [1, 2];', {}, {}, { pool })).toEqual([1, 2]);
    expect(pool.stats()).toMatchObject({ workers: 1, started: 2 });
  });

  it('is closed by the executor registry, which ends calls in flight', async () => {
    const registry = createExecutorRegistry({ env: {} });
    const call: StepCall = { kind: 'code', input: { source: busy(5_000), args: null, input: null, steps: {} } };
    const ctx = { signal: new AbortController().signal, runId: 'r', stepId: 's', emitDelta: () => {} };
    const running = registry.execute(call, ctx);
    await new Promise((resolve) => setTimeout(resolve, 50));
    registry.close?.();
    expect((await failure(running)).message).toBe('code step: the code sandbox was closed');
  });

  it('never keeps a process alive: idle workers are unref’d', () => {
    const url = new URL('./sandbox.ts', import.meta.url).href;
    const script = `import { runInSandbox } from ${JSON.stringify(url)}; console.log(await runInSandbox('return 6 * 7;', {}));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(child.stderr).toBe('');
    expect([child.status, child.stdout.trim()]).toEqual([0, '42']);
  });
});
