import { describe, expect, it } from 'vitest';
import { RunInterrupt, StepFailedError } from '../errors.ts';
import { interpret } from '../interpreter/interpret.ts';
import type { Json } from '../json.ts';
import { deferred, drain, stepIssues, testFlow, track } from '../test-support/flows.ts';
import { eventTrail, MemoryHost } from '../test-support/memory-host.ts';
import { createExecutor } from '../test-support/model.ts';

const hostTools = { work: { description: 'Works on one item', parameters: { type: 'object' } } };

function mapFlow(
  extra: Record<string, unknown> = {},
  steps: unknown[] = [{ id: 'x', type: 'tool', tool: 'work', args: { item: '=item', index: '=index' } }],
) {
  return testFlow([{ id: 'each', type: 'map', items: '=input.items', steps, ...extra }], {}, { hostTools: ['work'] });
}

/** A host whose `work` tool counts how many calls run at once (each takes a macrotask). */
function countingHost() {
  const counter = { active: 0, max: 0, calls: [] as string[] };
  const host = new MemoryHost({
    execute: createExecutor({
      tools: {
        work: async (args, id) => {
          counter.calls.push(id);
          counter.active++;
          counter.max = Math.max(counter.max, counter.active);
          await new Promise<void>((resolve) => setImmediate(resolve));
          counter.active--;
          return args;
        },
      },
    }),
  });
  return { host, counter };
}

describe('map schema', () => {
  it('accepts items, concurrency and steps', () => {
    expect(stepIssues({ id: 'm', type: 'map', items: '=input.xs', concurrency: 3, steps: [] })).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['items that are not an expression', { items: '[1,2]' }, 'steps[0].items', /starting with "="/],
    ['concurrency 0', { concurrency: 0 }, 'steps[0].concurrency', />=1/],
    ['concurrency 1001', { concurrency: 1001 }, 'steps[0].concurrency', /<=1000/],
    ['a fractional concurrency', { concurrency: 1.5 }, 'steps[0].concurrency', /expected int/],
    ['missing steps', { steps: undefined }, 'steps[0].steps', /expected array/],
    ['items reading item', { items: '=item' }, 'steps[0].items', /'item' can only be read inside a map/],
  ])('rejects %s', (_name, change, path, message) => {
    const issues = stepIssues({ id: 'm', type: 'map', items: '=input.xs', steps: [], ...change });
    expect(issues).toContainEqual({ stepId: 'm', path, message: expect.stringMatching(message) });
  });
});

describe('map handler', () => {
  it('runs the steps per item under each[i]/ ids and outputs each last output in item order', async () => {
    const { host, counter } = countingHost();
    const output = await interpret(mapFlow(), { items: ['a', 'b', 'c'] }, host, { hostTools });
    expect(output).toEqual([
      { item: 'a', index: 0 },
      { item: 'b', index: 1 },
      { item: 'c', index: 2 },
    ]);
    expect(counter.calls).toEqual(['each[0]/x', 'each[1]/x', 'each[2]/x']);
    expect(host.events[0]).toEqual({
      type: 'step.started',
      stepId: 'each',
      stepType: 'map',
      input: { items: ['a', 'b', 'c'] },
    });
    expect(host.events.find((e) => e.type === 'step.started' && e.stepId === 'each[2]/x')).toMatchObject({
      parentId: 'each',
    });
  });

  it('lets later steps of an iteration read earlier ones of the same iteration only', async () => {
    const flow = mapFlow({}, [
      { id: 'double', type: 'transform', value: '=item * 2' },
      { id: 'label', type: 'transform', value: '{{ index }}:{{ steps.double.output }}' },
    ]);
    expect(await interpret(flow, { items: [1, 2, 3] }, new MemoryHost())).toEqual(['0:2', '1:4', '2:6']);
  });

  it.each<[number | undefined, number, number]>([
    [1, 5, 1],
    [2, 5, 2],
    [3, 7, 3],
    [undefined, 15, 10],
    [50, 4, 4],
  ])('never runs more than concurrency %s at once (%i items → %i)', async (concurrency, count, expected) => {
    const { host, counter } = countingHost();
    const items = Array.from({ length: count }, (_, index) => index);
    const flow = mapFlow(concurrency === undefined ? {} : { concurrency });
    const output = (await interpret(flow, { items }, host, { hostTools })) as { item: number }[];
    expect(counter.max).toBe(expected);
    expect(output.map((o) => o.item)).toEqual(items);
  });

  it('outputs an empty list for no items', async () => {
    const host = new MemoryHost();
    expect(await interpret(mapFlow(), { items: [] }, host, { hostTools })).toEqual([]);
    expect(eventTrail(host.events)).toEqual(['started:each', 'completed:each']);
  });

  it.each<[string, Json, string]>([
    ['an object', { items: { a: 1 } }, 'map items must be an array, got an object'],
    ['null', { items: null }, 'map items must be an array, got null'],
    ['a string', { items: 'abc' }, 'map items must be an array, got string'],
  ])('fails when items is %s', async (_name, input, message) => {
    await expect(interpret(mapFlow(), input, new MemoryHost(), { hostTools })).rejects.toMatchObject({
      stepId: 'each',
      message,
    });
  });

  it('stops starting items after a failure but lets running ones settle', async () => {
    const gate = deferred<Json>();
    const started: string[] = [];
    const host = new MemoryHost({
      execute: createExecutor({
        tools: {
          work: (args, id) => {
            started.push(id);
            const { index } = args as { index: number };
            if (index === 0) return gate.promise;
            if (index === 1) throw new Error('item 1 is bad');
            return index;
          },
        },
      }),
    });
    const running = track(interpret(mapFlow({ concurrency: 2 }), { items: [0, 1, 2, 3] }, host, { hostTools }));
    await drain();
    expect(running.settled).toBe(false);
    gate.resolve('zero');
    const error = await running.promise.catch((e) => e);
    expect(error).toBeInstanceOf(StepFailedError);
    expect(error).toMatchObject({ stepId: 'each[1]/x', message: 'item 1 is bad' });
    expect(started).toEqual(['each[0]/x', 'each[1]/x']);
    expect(host.journal.get('each[0]/x')).toEqual({ output: 'zero' });
  });

  it('reports a real failure over an iteration that parked', async () => {
    const host = new MemoryHost();
    const flow = mapFlow({ concurrency: 2 }, [
      {
        id: 'check',
        type: 'branch',
        cases: [{ when: '=index == 0', steps: [{ id: 'ask', type: 'approval', prompt: 'ok {{ item }}?' }] }],
        else: [{ id: 'stop', type: 'fail', message: 'bad {{ item }}' }],
      },
    ]);
    const error = await interpret(flow, { items: ['a', 'b'] }, host, { hostTools }).catch((e) => e);
    expect(error).toMatchObject({ stepId: 'each[1]/check/stop', message: 'bad b' });
    expect(host.commands).toEqual([{ op: 'approval', id: 'each[0]/check/ask', prompt: 'ok a?' }]);
  });

  it('parks when an iteration parks and nothing failed', async () => {
    const host = new MemoryHost();
    const flow = mapFlow({}, [{ id: 'ask', type: 'approval', prompt: '{{ item }}?' }]);
    await expect(interpret(flow, { items: ['a'] }, host, { hostTools })).rejects.toBeInstanceOf(RunInterrupt);
    expect(host.commands).toEqual([{ op: 'approval', id: 'each[0]/ask', prompt: 'a?' }]);
  });
});

describe('map as', () => {
  const orders = {
    orders: [
      { id: 'o1', lines: [{ sku: 'a' }, { sku: 'b' }] },
      { id: 'o2', lines: [{ sku: 'c' }] },
    ],
  };

  it.each<[string, string]>([
    ['the default written out', 'item'],
    ['another name', 'ticket'],
  ])('binds the item to %s', async (_name, as) => {
    const flow = testFlow([
      {
        id: 'each',
        type: 'map',
        items: '=input.items',
        as,
        steps: [{ id: 'label', type: 'transform', value: `={ id: ${as}.id, at: index }` }],
      },
    ]);
    expect(await interpret(flow, { items: [{ id: 'x' }, { id: 'y' }] }, new MemoryHost())).toEqual([
      { id: 'x', at: 0 },
      { id: 'y', at: 1 },
    ]);
  });

  it('lets a nested map read the outer item by its name and its own by another', async () => {
    const flow = testFlow([
      {
        id: 'each_order',
        type: 'map',
        items: '=input.orders',
        as: 'order',
        steps: [
          {
            id: 'each_line',
            type: 'map',
            items: '=order.lines',
            as: 'line',
            steps: [{ id: 'pair', type: 'transform', value: '{{ order.id }}:{{ line.sku }}:{{ index }}' }],
          },
        ],
      },
    ]);
    expect(await interpret(flow, orders, new MemoryHost())).toEqual([['o1:a:0', 'o1:b:1'], ['o2:c:0']]);
  });

  it('keeps the outer default item readable inside an inner map with another name', async () => {
    const flow = testFlow([
      {
        id: 'each_order',
        type: 'map',
        items: '=input.orders',
        steps: [
          {
            id: 'each_line',
            type: 'map',
            items: '=item.lines',
            as: 'line',
            steps: [{ id: 'pair', type: 'transform', value: '={ order: item.id, sku: line.sku }' }],
          },
        ],
      },
    ]);
    expect(await interpret(flow, orders, new MemoryHost())).toEqual([
      [
        { order: 'o1', sku: 'a' },
        { order: 'o1', sku: 'b' },
      ],
      [{ order: 'o2', sku: 'c' }],
    ]);
  });

  it('lets an inner map shadow an outer name', async () => {
    const flow = testFlow([
      {
        id: 'outer',
        type: 'map',
        items: '=input.rows',
        steps: [
          { id: 'inner', type: 'map', items: '=item', steps: [{ id: 'x', type: 'transform', value: '=item * 10' }] },
        ],
      },
    ]);
    expect(await interpret(flow, { rows: [[1, 2], [3]] }, new MemoryHost())).toEqual([[10, 20], [30]]);
  });

  it.each<[string, string, RegExp]>([
    ['a root name', 'input', /map 'as' 'input' is a name expressions already read/],
    ['index', 'index', /already read/],
    ['a helper', 'len', /map 'as' 'len' is a helper function/],
    ['a keyword', 'typeof', /reserved/],
    ['a global', 'process', /reserved/],
    ['a prototype member', '__proto__', /reserved/],
    ['constructor', 'constructor', /reserved/],
    ['not an identifier', 'my item', /must be an identifier/],
  ])('refuses %s as the name', (_name, as, message) => {
    const issues = stepIssues({ id: 'm', type: 'map', items: '=input.xs', as, steps: [] });
    expect(issues).toContainEqual({ stepId: 'm', path: 'steps[0].as', message: expect.stringMatching(message) });
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    [
      'the default name when the map renamed it',
      { as: 'ticket', steps: [{ id: 'x', type: 'transform', value: '=item' }] },
      'steps[0].steps[0].value',
      /'item' can only be read inside a map/,
    ],
    [
      'the name outside the map',
      { as: 'ticket', items: '=ticket' },
      'steps[0].items',
      /unknown name 'ticket'; expressions can read input, steps here .*\(at character 2\)/,
    ],
    [
      'a misspelt name, pinned to where it is read',
      { as: 'ticket', steps: [{ id: 'x', type: 'transform', value: '{{ tikcet.id }}' }] },
      'steps[0].steps[0].value',
      /unknown name 'tikcet'; expressions can read input, steps, ticket, index here .*\(at character 4\)/,
    ],
  ])('rejects reading %s', (_name, change, path, message) => {
    const issues = stepIssues({ id: 'm', type: 'map', items: '=input.xs', steps: [], ...change });
    expect(issues).toContainEqual({ stepId: expect.any(String), path, message: expect.stringMatching(message) });
  });
});
