import { compareFlows, compareRuns, type Flow, type RunEvent, type RunEventInput, runState } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { markCounts, markLabel, runMarks, versionMarks } from './compare-view.ts';

let seq = 0;
const ev = (runId: string, event: RunEventInput): RunEvent => ({ ...event, runId, seq: ++seq, at: seq * 10 });

/** A run of [stepId, stepType, output] steps, completed in order. */
function run(runId: string, steps: [string, string, unknown][]) {
  return runState([
    ev(runId, { type: 'run.started', flowId: 'f', flowVersion: 1, input: {}, backend: 'inprocess' }),
    ...steps.flatMap(([stepId, stepType, output]) => [
      ev(runId, { type: 'step.started', stepId, stepType }),
      ev(runId, { type: 'step.completed', stepId, output: output as never }),
    ]),
    ev(runId, { type: 'run.completed', output: null }),
  ]);
}

describe('runMarks', () => {
  it('marks each node from its steps and finds the node of the first divergence', () => {
    const a = run('a', [
      ['research', 'llm', 'x'],
      ['research/llm#1', 'model-turn', 'x'],
      ['route', 'branch', 'yes'],
      ['route.yes/keep', 'transform', 1],
      ['each', 'map', [1, 2]],
      ['each[0]/pick', 'code', 1],
      ['each[1]/pick', 'code', 2],
    ]);
    const b = run('b', [
      ['research', 'llm', 'x'],
      ['research/llm#1', 'model-turn', 'x'],
      ['route', 'branch', 'no'],
      ['route.no/drop', 'transform', 0],
      ['each', 'map', [1, 2]],
      ['each[0]/pick', 'code', 1],
      ['each[1]/pick', 'code', 2],
      ['each[2]/pick', 'code', 3],
      ['extra', 'transform', 0],
    ]);
    const nodes = new Set(['research', 'route', 'keep', 'drop', 'each', 'pick']);
    const view = runMarks(compareRuns(a, b), nodes);
    expect({ ...view.marks }).toEqual({
      research: 'same',
      route: 'different',
      keep: 'only-a',
      drop: 'only-b',
      each: 'same',
      // Items 0 and 1 the same, item 2 only in B: the node differs.
      pick: 'different',
    });
    expect(view.firstDivergence).toBe('route');
    expect(view.offCanvas).toEqual([{ stepId: 'extra', mark: 'only-b' }]);
    expect(markCounts(view.marks)).toEqual({ same: 2, different: 2, 'only-a': 1, 'only-b': 1 });
  });
});

describe('versionMarks', () => {
  it('marks added and changed steps on the canvas and lists the removed ones', () => {
    const v1 = {
      steps: [
        { id: 'a', type: 'transform', value: 1 },
        { id: 'gone', type: 'transform', value: 2 },
      ],
    } as unknown as Flow;
    const v2 = {
      steps: [
        { id: 'a', type: 'transform', value: 3 },
        { id: 'new', type: 'transform', value: 4 },
      ],
    } as unknown as Flow;
    const view = versionMarks(compareFlows(v1, v2), new Set(['a', 'new']));
    expect({ ...view.marks }).toEqual({ a: 'changed', new: 'added' });
    expect(view.offCanvas).toEqual([{ stepId: 'gone', mark: 'removed' }]);
    const names = { kind: 'versions' as const, a: { version: 1 }, b: { version: 2 } };
    expect(markLabel('removed', names as never)).toBe('removed in v2 (was in v1)');
  });
});
