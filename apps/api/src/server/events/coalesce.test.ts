import type { RunEvent } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { coalesceDeltas } from './coalesce.ts';

const at = 1;
const delta = (seq: number, stepId: string, text: string): RunEvent => ({
  type: 'step.delta',
  stepId,
  text,
  runId: 'r',
  seq,
  at,
});

describe('coalesceDeltas', () => {
  it('merges consecutive deltas of one step, keeping the last seq; other events split runs', () => {
    const started: RunEvent = { type: 'step.started', stepId: 'b', stepType: 'llm', runId: 'r', seq: 4, at };
    const events = [
      delta(1, 'a', 'he'),
      delta(2, 'a', 'll'),
      delta(3, 'a', 'o'),
      started,
      delta(5, 'b', 'x'),
      delta(6, 'a', 'y'),
    ];
    expect(coalesceDeltas(events)).toEqual([delta(3, 'a', 'hello'), started, delta(5, 'b', 'x'), delta(6, 'a', 'y')]);
    expect(coalesceDeltas([])).toEqual([]);
  });
});
