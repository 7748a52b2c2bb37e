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
      const plan = planReplay(journal, events, { from: c.from, pins: c.pins });
      expect(plan.reused).toEqual(c.reused);
      expect(plan.pinned).toEqual(c.pinned ?? []);
      expect(plan.seed.map((e) => e.stepId).sort()).toEqual([...c.reused, ...(c.pinned ?? [])].sort());
    });
  }

  it('keeps a reused failure as a failure, and a pinned result as completed with the value', () => {
    const failed = planReplay(
      [...journal, entry('s6', 'code')],
      [...events, at('step.started', 's6'), at('step.completed', 's6')],
      { from: 's6' },
    );
    expect(failed.seed.find((e) => e.stepId === 's5')).toMatchObject({ status: 'failed', error: { message: 'boom' } });
    const pinned = planReplay(journal, events, { from: 's3', pins: { s3: 'given' } });
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
    const plan = planReplay([entry('c')], trail, { from: 'get', pins: { c: 1 } });
    expect(plan.rerun).toEqual(['get', 'post', 't', 'kid', 'm']);
    expect(plan.sideEffects).toEqual([
      { stepId: 'post', stepType: 'http' },
      { stepId: 't', stepType: 'tool' },
      { stepId: 'kid', stepType: 'spawn' },
    ]);
  });

  it('refuses a checkpoint that never started, or a pin of one that was never called, naming the field', () => {
    expect(() => planReplay(journal, events, { from: 'nope' })).toThrow(UnknownCheckpointError);
    expect(() => planReplay(journal, events, { from: 'nope' })).toThrow(
      /^from: run has no checkpoint 'nope'; it has: s1, s2, w/,
    );
    expect(() => planReplay(journal, events, { from: 's3', pins: { w: 1 } })).toThrow(
      /^pin: run has no checkpoint 'w'/,
    );
  });
});

describe('planReplay: what the gate keeps out', () => {
  const chain = ['a', 'b', 'c', 'd'];
  const trail = chain.flatMap((id) => [at('step.started', id), at('step.completed', id)]);
  const recorded = chain.map((id) => entry(id));
  const flow = (ids: string[], changed: Record<string, string> = {}) =>
    ({
      irVersion: 1,
      id: 'f',
      version: 1,
      steps: ids.map((id) => ({ id, type: 'code', source: changed[id] ?? `return '${id}';` })),
    }) as never;

  const cases: {
    name: string;
    live?: string[];
    target?: string[];
    changed?: Record<string, string>;
    reused: string[];
    not: [string, RegExp][];
  }[] = [
    { name: 'a step asked to run live', live: ['b'], reused: ['a', 'c'], not: [['b', /asked to run live/]] },
    {
      name: 'a step inserted in the middle: what comes before it is reused, what comes after is not',
      target: ['a', 'x', 'b', 'c', 'd'],
      reused: ['a'],
      not: [
        ['b', /after the added step 'x'/],
        ['c', /after the added step 'x'/],
      ],
    },
    {
      name: 'a changed step and everything after it',
      target: chain,
      changed: { b: 'return 2;' },
      reused: ['a'],
      not: [
        ['b', /step 'b' changed \(source\)/],
        ['c', /after the changed step 'b'/],
      ],
    },
    { name: 'a removed step', target: ['a', 'c', 'd'], reused: ['a', 'c'], not: [['b', /step 'b' no longer exists/]] },
    {
      name: 'an unchanged new version reuses everything before the point',
      target: chain,
      reused: ['a', 'b', 'c'],
      not: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const plan = planReplay(recorded, trail, {
        from: 'd',
        live: c.live,
        versions: c.target ? { source: flow(chain), target: flow(c.target, c.changed) } : undefined,
      });
      expect(plan.reused).toEqual(c.reused);
      expect(plan.notReused.map((n) => n.checkpoint)).toEqual(c.not.map(([id]) => id));
      for (const [index, [, reason]] of c.not.entries()) expect(plan.notReused[index]?.reason).toMatch(reason);
      // What is not reused runs again, before the point's own steps.
      expect(plan.rerun).toEqual([...c.not.map(([id]) => id), 'd']);
    });
  }

  it('gives decisions made before the point again, unless asked again; never one made after it', () => {
    const decided = (stepId: string, approved: boolean): RunEvent =>
      ({
        runId: 'r',
        seq: ++seq,
        at: 0,
        type: 'approval.resolved',
        stepId,
        approved,
        by: 'ann',
        comment: null,
        timedOut: false,
      }) as RunEvent;
    const withApprovals = [
      at('step.started', 'ok'),
      decided('ok', true),
      at('step.completed', 'ok'),
      at('step.started', 'd2'),
      at('step.started', 'late'),
      decided('late', false),
    ];
    const reuse = planReplay([], withApprovals, { from: 'd2' });
    expect(reuse.approvals).toEqual([{ stepId: 'ok', approved: true, by: 'ann', timedOut: false }]);
    expect(reuse.seed).toEqual([
      expect.objectContaining({ stepId: 'ok', kind: 'approval', output: expect.objectContaining({ approved: true }) }),
    ]);
    const ask = planReplay([], withApprovals, { from: 'd2', approvals: 'ask' });
    expect(ask.approvals).toEqual([]);
    expect(ask.seed).toEqual([]);
  });

  it('reuses a child run that completed before the point, and reads a replay source through its seed', () => {
    const spawned = { ...entry('kid', 'spawn'), output: { summary: 'x' } };
    const trail2 = [
      at('step.started', 'kid'),
      at('step.completed', 'kid'),
      at('step.started', 'z'),
      at('step.started', 'never'),
    ];
    // The source was itself a replay: `kid` answered from its seed (stored under @seed:), `never` was not asked.
    const plan = planReplay(
      [
        { ...spawned, stepId: '@seed:kid' },
        { ...entry('unasked'), stepId: '@seed:unasked' },
      ],
      trail2,
      { from: 'z' },
    );
    expect(plan.reused).toEqual(['kid']);
    expect(plan.seed).toEqual([expect.objectContaining({ stepId: 'kid', kind: 'spawn', output: { summary: 'x' } })]);
  });
});
