/** What a replay reuses from its source run, case by case. */
import type { RunEvent } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../store/types.ts';
import { planReplay, UnknownCheckpointError } from './replay-plan.ts';

const entry = (stepId: string, kind = 'code', status: 'completed' | 'failed' = 'completed'): JournalEntry => ({
  stepId,
  kind,
  inputHash: `${kind}:${stepId}`,
  status,
  output: status === 'completed' ? `${stepId}-out` : null,
  error: status === 'failed' ? { name: 'Error', message: 'boom' } : null,
});

let seq = 0;
const at = (type: 'step.started' | 'step.completed' | 'step.failed', stepId: string): RunEvent =>
  ({
    runId: 'r',
    seq: ++seq,
    at: 0,
    type,
    stepId,
    ...(type === 'step.started' ? { stepType: 'code' } : {}),
  }) as RunEvent;

/** s1, s2 done; w (a sleep) done; s3 and s4 run concurrently, s4 ends after s3 started; s5 failed. */
const events: RunEvent[] = [
  at('step.started', 's1'),
  at('step.completed', 's1'),
  at('step.started', 's2'),
  at('step.completed', 's2'),
  at('step.started', 'w'),
  at('step.completed', 'w'),
  at('step.started', 's4'),
  at('step.started', 's3'),
  at('step.completed', 's4'),
  at('step.completed', 's3'),
  at('step.started', 's5'),
  at('step.failed', 's5'),
];
const journal = [
  entry('s1'),
  entry('s2'),
  entry('w', 'sleep'),
  entry('s4', 'http'),
  entry('s3'),
  entry('s5', 'tool', 'failed'),
];

describe('planReplay', () => {
  const cases: { name: string; from: string; pins?: Record<string, string>; reused: string[]; pinned?: string[] }[] = [
    { name: 'from the first step reuses nothing', from: 's1', reused: [] },
    { name: 'calls completed before the point are reused; a sleep is not', from: 's4', reused: ['s1', 's2'] },
    { name: 'a call still running when the point started is not reused', from: 's3', reused: ['s1', 's2'] },
    { name: 'after everything, the failure too', from: 's5', reused: ['s1', 's2', 's4', 's3'] },
    {
      name: 'a pin replaces a reused result',
      from: 's5',
      pins: { s2: 'x' },
      reused: ['s1', 's4', 's3'],
      pinned: ['s2'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const plan = planReplay(journal, events, c.from, c.pins);
      expect(plan.reused).toEqual(c.reused);
      expect(plan.pinned).toEqual(c.pinned ?? []);
      expect(plan.seed.map((e) => e.stepId).sort()).toEqual([...c.reused, ...(c.pinned ?? [])].sort());
    });
  }

  it('keeps a reused failure as a failure, and a pinned result as completed with the value', () => {
    const failed = planReplay(
      [...journal, entry('s6', 'code')],
      [...events, at('step.started', 's6'), at('step.completed', 's6')],
      's6',
    );
    expect(failed.seed.find((e) => e.stepId === 's5')).toMatchObject({ status: 'failed', error: { message: 'boom' } });
    const pinned = planReplay(journal, events, 's3', { s3: 'given' });
    expect(pinned.seed.find((e) => e.stepId === 's3')).toMatchObject({
      status: 'completed',
      output: 'given',
      inputHash: 'code:s3',
    });
  });

  it('names the side effects that would fire again: http other than GET, tools, code, child runs', () => {
    const started = (stepId: string, stepType: string, input?: unknown): RunEvent =>
      ({ runId: 'r', seq: ++seq, at: 0, type: 'step.started', stepId, stepType, input }) as RunEvent;
    const trail = [
      started('p', 'transform'),
      started('get', 'http', { method: 'GET', url: 'x' }),
      started('post', 'http', { method: 'POST', url: 'x' }),
      started('t', 'tool'),
      started('c', 'code'),
      started('kid', 'spawn'),
      started('m', 'model-turn'),
    ];
    const plan = planReplay([entry('c')], trail, 'get', { c: 1 });
    expect(plan.rerun).toEqual(['get', 'post', 't', 'kid', 'm']);
    expect(plan.sideEffects).toEqual([
      { stepId: 'post', stepType: 'http' },
      { stepId: 't', stepType: 'tool' },
      { stepId: 'kid', stepType: 'spawn' },
    ]);
  });

  it('refuses a checkpoint that never started, or a pin of one that was never called, naming the field', () => {
    expect(() => planReplay(journal, events, 'nope')).toThrow(UnknownCheckpointError);
    expect(() => planReplay(journal, events, 'nope')).toThrow(/^from: run has no checkpoint 'nope'; it has: s1, s2, w/);
    expect(() => planReplay(journal, events, 's3', { w: 1 })).toThrow(/^pin: run has no checkpoint 'w'/);
  });
});
