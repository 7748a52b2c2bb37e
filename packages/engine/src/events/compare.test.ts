/** compareRuns over states folded from event logs, case by case. */
import { describe, expect, it } from 'vitest';
import { compareRuns } from './compare.ts';
import type { RunEvent } from './events.ts';
import { runState } from './reducer.ts';

let seq = 0;
const ev = (runId: string, event: Record<string, unknown>): RunEvent =>
  ({ runId, seq: ++seq, at: seq * 10, ...event }) as RunEvent;

/** A run of steps: [id, output] each completed in order, then the run's output. */
function run(runId: string, steps: [string, unknown][], output: unknown) {
  return runState([
    ev(runId, { type: 'run.started', flowId: 'f', flowVersion: 1, input: {}, backend: 'inprocess' }),
    ...steps.flatMap(([stepId, out]) => [
      ev(runId, { type: 'step.started', stepId, stepType: 'transform' }),
      ev(runId, { type: 'step.completed', stepId, output: out }),
    ]),
    ev(runId, { type: 'run.completed', output }),
  ]);
}

describe('compareRuns', () => {
  it('finds nothing between two runs that did the same', () => {
    const a = run(
      'a',
      [
        ['x', 1],
        ['y', { v: 2 }],
      ],
      2,
    );
    const b = run(
      'b',
      [
        ['x', 1],
        ['y', { v: 2 }],
      ],
      2,
    );
    const comparison = compareRuns(a, b);
    expect(comparison.steps.map((step) => step.kind)).toEqual(['same', 'same']);
    expect(comparison.firstDivergence).toBeNull();
    expect(comparison.output.same).toBe(true);
  });

  it('names the first divergence in execution order, the changed paths, and steps one run only took', () => {
    // Diverge at a branch: A took arm `yes`, B took arm `no`.
    const a = run(
      'a',
      [
        ['classify', 'spam'],
        ['route', 'yes'],
        ['route/yes', 'dropped'],
      ],
      'dropped',
    );
    const b = run(
      'b',
      [
        ['classify', 'ham'],
        ['route', 'no'],
        ['route/no', 'kept'],
      ],
      'kept',
    );
    const comparison = compareRuns(a, b);
    expect(comparison.steps.map((step) => [step.stepId, step.kind])).toEqual([
      ['classify', 'different'],
      ['route', 'different'],
      ['route/yes', 'only-a'],
      ['route/no', 'only-b'],
    ]);
    expect(comparison.firstDivergence).toBe('classify');
    const classify = comparison.steps[0]!;
    expect(classify.kind === 'different' && classify.changes).toEqual([
      { type: 'CHANGE', path: ['output'], oldValue: 'spam', value: 'ham' },
    ]);
    expect(comparison.output).toEqual({
      same: false,
      changes: [{ type: 'CHANGE', path: ['output'], oldValue: 'dropped', value: 'kept' }],
    });
  });

  it('diffs nested output structurally', () => {
    const comparison = compareRuns(
      run('a', [['s', { a: 1, list: [1, 2] }]], null),
      run('b', [['s', { a: 1, list: [1, 3], extra: true }]], null),
    );
    const step = comparison.steps[0]!;
    expect(step.kind).toBe('different');
    expect(step.kind === 'different' && step.changes.map((change) => [change.type, change.path.join('.')])).toEqual([
      ['CHANGE', 'output.list.1'],
      ['CREATE', 'output.extra'],
    ]);
  });
});
