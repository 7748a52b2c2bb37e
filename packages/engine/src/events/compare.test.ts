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

/** An agent step `agent` with model turns [tokens, durationMs, reused?], then the run's end. */
function agentRun(runId: string, turns: [number, number, boolean?][], output: unknown, at0 = 0) {
  let at = at0;
  const events: RunEvent[] = [
    { runId, seq: 1, at, type: 'run.started', flowId: 'f', flowVersion: 1, input: {}, backend: 'inprocess' },
    { runId, seq: 2, at, type: 'step.started', stepId: 'agent', stepType: 'llm' },
  ] as RunEvent[];
  turns.forEach(([used, ms, reused], index) => {
    const stepId = `agent/llm#${index + 1}`;
    events.push(ev(runId, { at, type: 'step.started', stepId, stepType: 'model-turn', parentId: 'agent' }));
    at += ms;
    events.push(
      ev(runId, {
        at,
        type: 'step.completed',
        stepId,
        output: { text: `turn ${index + 1}` },
        usage: { inputTokens: used / 2, outputTokens: used / 2 },
        ...(reused ? { reused: true } : {}),
      }),
    );
  });
  events.push(ev(runId, { at, type: 'step.completed', stepId: 'agent', output }));
  events.push(ev(runId, { at, type: 'run.completed', output }));
  return runState(events);
}

describe('compareRuns: per-step deltas', () => {
  it('gives each step both sides’ tokens and latency and their delta (B minus A)', () => {
    const a = agentRun(
      'a',
      [
        [10, 100],
        [20, 200],
      ],
      'done',
    );
    const b = agentRun(
      'b',
      [
        [10, 0, true],
        [30, 50],
      ],
      'done',
    );
    const comparison = compareRuns(a, b);
    const byId = Object.fromEntries(comparison.steps.map((step) => [step.stepId, step]));
    // The first turn was reused by B: the same step, recorded tokens equal, none spent, no time.
    expect(byId['agent/llm#1']).toMatchObject({
      kind: 'same',
      a: { tokens: 10, spentTokens: 10, durationMs: 100, reused: false },
      b: { tokens: 10, spentTokens: 0, durationMs: 0, reused: true },
      delta: { tokens: 0, spentTokens: -10, durationMs: -100 },
    });
    expect(byId['agent/llm#2']).toMatchObject({
      kind: 'same',
      a: { tokens: 20, durationMs: 200 },
      b: { tokens: 30, durationMs: 50 },
      delta: { tokens: 10, spentTokens: 10, durationMs: -150 },
    });
    // The llm step adds up its turns.
    expect(byId.agent).toMatchObject({
      a: { tokens: 30, spentTokens: 30, durationMs: 300 },
      b: { tokens: 40, spentTokens: 30, durationMs: 50 },
      delta: { tokens: 10, spentTokens: 0, durationMs: -250 },
    });
    expect(comparison.delta).toMatchObject({ tokens: 10, spentTokens: 0 });
  });

  it('has no delta for a step one run only took', () => {
    const comparison = compareRuns(
      agentRun('a', [[4, 10]], 'x'),
      agentRun(
        'b',
        [
          [4, 10],
          [6, 10],
        ],
        'x',
      ),
    );
    const only = comparison.steps.find((step) => step.stepId === 'agent/llm#2');
    expect(only).toMatchObject({ kind: 'only-b', a: null, b: { tokens: 6 }, delta: null });
  });

  it('lists steps in execution order, ids that look like numbers too', () => {
    const comparison = compareRuns(
      run(
        'a',
        [
          ['b', 1],
          ['2', 2],
          ['a', 3],
        ],
        3,
      ),
      run(
        'b',
        [
          ['b', 1],
          ['2', 2],
          ['1', 0],
          ['a', 3],
        ],
        3,
      ),
    );
    expect(comparison.steps.map((step) => `${step.stepId}:${step.kind}`)).toEqual([
      'b:same',
      '2:same',
      'a:same',
      '1:only-b',
    ]);
    expect(comparison.firstDivergence).toBe('1');
  });

  it('does not count reuse as a difference', () => {
    const comparison = compareRuns(agentRun('a', [[4, 10]], 'x'), agentRun('b', [[4, 0, true]], 'x'));
    expect(comparison.steps.every((step) => step.kind === 'same')).toBe(true);
    expect(comparison.firstDivergence).toBeNull();
  });
});
