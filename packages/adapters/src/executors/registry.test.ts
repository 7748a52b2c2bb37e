import { type Json, NonRetryableError, type StepCall } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { createExecutorRegistry, type ExecutorOptions } from './index.ts';
import { failure } from './test-support.ts';

function execute(call: StepCall, options: ExecutorOptions = {}, signal = new AbortController().signal) {
  return createExecutorRegistry({ env: {}, ...options }).execute(call, {
    signal,
    runId: 'run-1',
    stepId: 'step',
    emitDelta: () => {},
  });
}

const add = {
  description: 'Adds two numbers',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  execute: (args: Json) => {
    const { a, b } = args as { a: number; b: number };
    return a + b;
  },
};

describe('tool calls', () => {
  it('runs a registered tool with its arguments', async () => {
    expect(await execute({ kind: 'tool', input: { tool: 'add', args: { a: 1, b: 2 } } }, { tools: { add } })).toBe(3);
  });

  it('passes the step signal to the tool', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const tools = {
      probe: {
        ...add,
        execute: (_args: Json, ctx: { signal: AbortSignal }) => {
          seen = ctx.signal;
          return null;
        },
      },
    };
    await execute({ kind: 'tool', input: { tool: 'probe', args: {} } }, { tools }, controller.signal);
    expect(seen).toBe(controller.signal);
  });

  it('returns the result as plain JSON', async () => {
    const tools = {
      when: { ...add, execute: async () => ({ at: new Date(0), skip: undefined, list: [1, undefined] }) as never },
    };
    expect(await execute({ kind: 'tool', input: { tool: 'when', args: {} } }, { tools })).toEqual({
      at: '1970-01-01T00:00:00.000Z',
      list: [1, null],
    });
  });

  it('names an unknown tool and lists the registered ones', async () => {
    const error = await failure(execute({ kind: 'tool', input: { tool: 'sub', args: {} } }, { tools: { add } }));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe('unknown tool "sub"; registered tools: "add"');
  });

  it('does not treat inherited object properties as tools', async () => {
    const error = await failure(execute({ kind: 'tool', input: { tool: 'toString', args: {} } }));
    expect(error.message).toBe('unknown tool "toString"; registered tools: (none)');
  });

  it("propagates the tool's own error unchanged, so it stays retryable", async () => {
    const boom = new Error('upstream down');
    const tools = { flaky: { ...add, execute: () => Promise.reject(boom) } };
    expect(await failure(execute({ kind: 'tool', input: { tool: 'flaky', args: {} } }, { tools }))).toBe(boom);
  });
});

describe('code calls', () => {
  it('runs the source with args, input and steps', async () => {
    const call: StepCall = {
      kind: 'code',
      input: {
        source: 'return args.factor * input.n + steps.prev.output.length;',
        args: { factor: 10 },
        input: { n: 4 },
        steps: { prev: { output: [1, 2, 3] } },
      },
    };
    expect(await execute(call)).toBe(43);
  });

  it('applies the configured sandbox time limit', async () => {
    const call: StepCall = { kind: 'code', input: { source: 'for (;;) {}', args: null, input: null, steps: {} } };
    const error = await failure(execute(call, { sandbox: { timeoutMs: 100 } }));
    expect(error.message).toBe('code step exceeded its 100 ms time limit');
  });

  it('does not start when the step was already aborted', async () => {
    const call: StepCall = { kind: 'code', input: { source: 'return 1', args: null, input: null, steps: {} } };
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    expect((await failure(execute(call, {}, controller.signal))).message).toBe('cancelled');
  });
});

describe('the registry', () => {
  it('rejects a call kind it does not know', async () => {
    const error = await failure(execute({ kind: 'shell', input: {} } as unknown as StepCall));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe('unknown step call kind "shell"');
  });
});
