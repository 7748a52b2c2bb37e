import { describe, expect, it } from 'vitest';
import { StepFailedError } from '../errors.ts';
import { interpret } from '../interpreter/interpret.ts';
import { stepIssues, testFlow } from '../test-support/flows.ts';
import { MemoryHost } from '../test-support/memory-host.ts';

describe('transform schema', () => {
  it('accepts an expression, an object of expressions or a literal', () => {
    expect(stepIssues({ id: 't', type: 'transform', value: '=input.a' })).toEqual([]);
    expect(stepIssues({ id: 't', type: 'transform', value: { a: '=input.a', b: [1, 'x {{ input.b }}'] } })).toEqual([]);
    expect(stepIssues({ id: 't', type: 'transform', value: 42 })).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['a missing value', { value: undefined }, 'steps[0].value', /received undefined/],
    ['an expression that does not parse', { value: { a: '=1 +' } }, 'steps[0].value.a', /unexpected end of expression/],
    [
      'a call of a function that is not a helper',
      { value: '=fetch(1)' },
      'steps[0].value',
      /'fetch' is not an allowed function/,
    ],
    ['an unknown name', { value: '=process.env' }, 'steps[0].value', /unknown name 'process'/],
  ])('rejects %s', (_name, change, path, message) => {
    const issues = stepIssues({ id: 't', type: 'transform', value: 1, ...change });
    expect(issues).toContainEqual({ stepId: 't', path, message: expect.stringMatching(message) });
  });
});

describe('transform handler', () => {
  it('evaluates expressions and templates against input and earlier steps without a checkpoint', async () => {
    const host = new MemoryHost();
    const flow = testFlow([
      { id: 'a', type: 'transform', value: '=input.n * 2' },
      { id: 'b', type: 'transform', value: { doubled: '=steps.a.output', label: 'n={{ input.n }}', raw: true } },
    ]);
    expect(await interpret(flow, { n: 21 }, host)).toEqual({ doubled: 42, label: 'n=21', raw: true });
    expect(host.journal.size).toBe(0);
    expect(host.events).toEqual([
      { type: 'step.started', stepId: 'a', stepType: 'transform' },
      { type: 'step.completed', stepId: 'a', output: 42 },
      { type: 'step.started', stepId: 'b', stepType: 'transform' },
      { type: 'step.completed', stepId: 'b', output: { doubled: 42, label: 'n=21', raw: true } },
    ]);
  });

  it('turns a missing value into null', async () => {
    const flow = testFlow([{ id: 'a', type: 'transform', value: '=input.missing' }]);
    expect(await interpret(flow, {}, new MemoryHost())).toBeNull();
  });

  it('fails the step with the evaluation error', async () => {
    const host = new MemoryHost();
    const flow = testFlow([{ id: 'a', type: 'transform', value: '=input.a.b' }]);
    const error = await interpret(flow, { a: null }, host).catch((e) => e);
    expect(error).toBeInstanceOf(StepFailedError);
    expect(error.stepId).toBe('a');
    expect(error.message).toMatch(/input\.a/);
    expect(host.events.at(-1)).toMatchObject({ type: 'step.failed', stepId: 'a', error: { code: 'step_failed' } });
  });

  it("uses the flow's output expression over the last step's output", async () => {
    const flow = testFlow(
      [
        { id: 'a', type: 'transform', value: 1 },
        { id: 'b', type: 'transform', value: 2 },
      ],
      { output: { first: '=steps.a.output', last: '=steps.b.output' } },
    );
    expect(await interpret(flow, null, new MemoryHost())).toEqual({ first: 1, last: 2 });
  });
});
