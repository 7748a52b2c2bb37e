/**
 * What a run produces is bounded: a step's output (every call's result, checked in the executor
 * registry that every backend calls), a single event (a container step's gathered output) and
 * the run's output. Each over its limit fails the step or the run with an error naming the step
 * and the limit, and nothing oversize reaches the store.
 */
import type { RunEvent } from '@weft/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { createExecutorRegistry } from '../src/executors/index.ts';
import { flowOf, sqliteRunnerHarness } from '../src/inprocess/test-support.ts';
import { jsonBytes } from '../src/limits.ts';

const { store, runner } = sqliteRunnerHarness();

const ENV = ['WEFT_MAX_STEP_OUTPUT_BYTES', 'WEFT_MAX_EVENT_BYTES', 'WEFT_MAX_RUN_OUTPUT_BYTES'] as const;
const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const name of ENV) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

/** The run failed with `message`, and no stored event holds more than `maxEventBytes` of JSON. */
async function expectFailed(runId: string, message: string, maxEventBytes: number): Promise<RunEvent[]> {
  const row = await store.getRun(runId);
  expect(row?.status).toBe('failed');
  expect(row?.error?.message).toContain(message);
  const events = await store.readEvents(runId);
  expect(events.at(-1)).toMatchObject({ type: 'run.failed' });
  const largest = Math.max(...events.map((event) => JSON.stringify(event).length));
  expect(largest).toBeLessThan(maxEventBytes);
  return events;
}

describe('the step output limit', () => {
  it('refuses a code step result over the default 1 MiB, naming the step and the limit', async () => {
    const flow = flowOf('big-code', [{ id: 'big', type: 'code', source: "return 'x'.repeat(1100000);" }]);
    const outcome = await runner().start(flow, {});
    const message = "step 'big' output is 1.1 MB, over the 1 MiB step output limit (WEFT_MAX_STEP_OUTPUT_BYTES)";
    expect(outcome.error?.message).toContain(message);
    const events = await expectFailed(outcome.runId, message, 10_000);
    expect(events.find((event) => event.type === 'step.failed')).toMatchObject({ stepId: 'big' });
  });

  it('refuses any call result over it: a host tool, with the limit given in options', async () => {
    const tools = {
      lookup: {
        description: 'returns a lot',
        parameters: { type: 'object' },
        execute: () => ({ rows: Array.from({ length: 100 }, (_, i) => ({ i, text: 'lorem ipsum' })) }),
      },
    };
    const flow = flowOf('big-tool', [{ id: 'find', type: 'tool', tool: 'lookup', args: {} }]);
    const outcome = await runner({ tools, executors: { maxStepOutputBytes: 1000 } }).start(flow, {});
    await expectFailed(
      outcome.runId,
      "step 'find' output is over the 1000 bytes step output limit (WEFT_MAX_STEP_OUTPUT_BYTES)",
      2000,
    );
  });

  it('takes its limit from WEFT_MAX_STEP_OUTPUT_BYTES, and refuses a value that is not a size', async () => {
    process.env.WEFT_MAX_STEP_OUTPUT_BYTES = '100';
    const flow = flowOf('small-limit', [{ id: 'c', type: 'code', source: "return 'x'.repeat(200);" }]);
    const outcome = await runner().start(flow, {});
    expect(outcome.error?.message).toBe(
      "step 'c' output is 202 bytes, over the 100 bytes step output limit (WEFT_MAX_STEP_OUTPUT_BYTES)",
    );
    process.env.WEFT_MAX_STEP_OUTPUT_BYTES = 'lots';
    expect(() => createExecutorRegistry()).toThrow('WEFT_MAX_STEP_OUTPUT_BYTES must be a positive whole number');
  });
});

describe('the event and run output limits', () => {
  it("fails a map whose gathered output is over the event limit, naming the step (each item's is within its own)", async () => {
    process.env.WEFT_MAX_EVENT_BYTES = '2000';
    const flow = flowOf('wide-map', [
      {
        id: 'each',
        type: 'map',
        items: '=input.items',
        steps: [{ id: 'part', type: 'code', source: "return 'x'.repeat(300);" }],
      },
    ]);
    const outcome = await runner().start(flow, { items: Array.from({ length: 10 }, (_, i) => i) });
    const events = await expectFailed(
      outcome.runId,
      "step 'each' output is over the 2000 bytes event limit (WEFT_MAX_EVENT_BYTES)",
      2000,
    );
    expect(events.filter((event) => event.type === 'step.completed')).toHaveLength(10);
    expect(events.find((event) => event.type === 'step.failed')).toMatchObject({ stepId: 'each' });
  });

  it('fails a run whose output is over WEFT_MAX_RUN_OUTPUT_BYTES', async () => {
    process.env.WEFT_MAX_RUN_OUTPUT_BYTES = '1000';
    const flow = flowOf('big-output', [{ id: 'last', type: 'code', source: "return 'x'.repeat(1500);" }]);
    const outcome = await runner().start(flow, {});
    const events = await expectFailed(
      outcome.runId,
      'run output is over the 1000 bytes run output limit (WEFT_MAX_RUN_OUTPUT_BYTES)',
      2000,
    );
    // The step itself was within its own limit, and stands.
    expect(events.find((event) => event.type === 'step.completed')).toMatchObject({ stepId: 'last' });
    expect((await store.getRun(outcome.runId))?.output).toBeNull();
  });
});

describe('jsonBytes', () => {
  const values: [string, unknown][] = [
    ['null', null],
    ['numbers', [0, -1.5, 1e21, 123456789, Number.NaN, Number.POSITIVE_INFINITY]],
    ['booleans', { a: true, b: false }],
    ['escapes', 'quote " backslash \\ newline \n tab \t nul \u0000 bell \u0007'],
    ['non-ASCII', { clé: 'été — 日本語 😀' }],
    ['undefined members and holes', { a: undefined, b: [undefined, () => 1], c: 1 }],
    ['nesting', { a: [{ b: [[], {}, [1, [2, [3]]]] }], d: '' }],
    ['a Date (toJSON)', { at: new Date(0) }],
  ];
  it.each(values)('is the UTF-8 length of JSON.stringify: %s', (_, value) => {
    expect(jsonBytes(value, Number.MAX_SAFE_INTEGER)).toBe(Buffer.byteLength(JSON.stringify(value)));
  });

  it('stops soon after the limit: a 5,000-deep array and a long one', () => {
    let deep: unknown = [];
    for (let i = 0; i < 5000; i++) deep = [deep];
    expect(jsonBytes(deep, Number.MAX_SAFE_INTEGER)).toBe(10_002);
    // Elements are read one at a time: a long array past the limit is not read to its end.
    let read = 0;
    const long = new Proxy(
      Array.from({ length: 100_000 }, () => 'xxxxxxxx'),
      {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) read++;
          return Reflect.get(target, key, receiver);
        },
      },
    );
    expect(jsonBytes(long, 1000)).toBeGreaterThan(1000);
    expect(read).toBeLessThan(100);
  });
});
