import { NonRetryableError } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { runInSandbox } from './sandbox.ts';

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
