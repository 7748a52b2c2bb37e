/**
 * The order in which concurrent branches reach the host after their calls settle together is
 * part of replay compatibility on Temporal: every call resolved in one workflow activation
 * continues after a number of promise turns that depends on the kind of step, and the commands
 * the branches then issue are numbered in that order. A change to those turns makes a history
 * recorded before it replay with one branch's recorded result handed to another — silently, as
 * both are the same activity type.
 *
 * Two orders are pinned, each for the workflows started with it: the one histories recorded
 * before tool calls lost their async wrappers replay with (`legacyTurns`, legacy-turns.ts), and
 * the one runs use now. A refactor of interpret.ts or a step handler that changes either must
 * not ship without a way for older histories to replay as recorded.
 */
import { describe, expect, it } from 'vitest';
import type { Json } from '../json.ts';
import { drain, testFlow } from '../test-support/flows.ts';
import type { StepHost } from './host.ts';
import { interpret } from './interpret.ts';

const hostTools = { mark: { description: 'marks', parameters: { type: 'object' } } };

/** Two steps per branch: a tool, a code step, a sleep or a map first; a tool after. */
const flow = testFlow(
  [
    {
      id: 'fan',
      type: 'parallel',
      branches: {
        t: [
          { id: 't1', type: 'tool', tool: 'mark' },
          { id: 't2', type: 'tool', tool: 'mark' },
        ],
        c: [
          { id: 'c1', type: 'code', source: 'return 1' },
          { id: 'c2', type: 'tool', tool: 'mark' },
        ],
        s: [
          { id: 's1', type: 'sleep', duration: '1s' },
          { id: 's2', type: 'tool', tool: 'mark' },
        ],
        m: [
          { id: 'm1', type: 'map', items: '=[1]', steps: [{ id: 'mt', type: 'tool', tool: 'mark' }] },
          { id: 'm2', type: 'tool', tool: 'mark' },
        ],
      },
    },
  ],
  {},
  { hostTools: Object.keys(hostTools) },
);

/** Starts the flow, settles `first` in the given order in one synchronous batch, and returns the host calls that follow. */
async function callsAfter(first: readonly string[], legacyTurns: boolean): Promise<string[]> {
  const pending = new Map<string, () => void>();
  const calls: string[] = [];
  const wait = <T>(id: string, value: T) => {
    calls.push(id);
    return new Promise<T>((resolve) => pending.set(id, () => resolve(value)));
  };
  const host: StepHost = {
    emit() {},
    run: (id) => wait<Json>(id, null),
    sleep: (id) => wait(id, { until: '2026-01-01T00:00:00.000Z' }),
    waitForApproval: () => Promise.reject(new Error('no approvals here')),
    spawn: () => Promise.reject(new Error('no children here')),
  };
  const run = interpret(flow, {}, host, { hostTools, legacyTurns });
  await drain();
  expect(calls).toEqual(['fan.t/t1', 'fan.c/c1', 'fan.s/s1', 'fan.m/m1[0]/mt']);
  calls.length = 0;
  for (const id of first) pending.get(id)?.();
  await drain();
  const after = [...calls];
  for (const id of [...pending.keys()]) pending.get(id)?.();
  for (let round = 0; round < 3; round++) {
    await drain();
    for (const resolve of pending.values()) resolve();
  }
  await run;
  return after;
}

describe('interpreter: the turn order of concurrent branches', () => {
  // Settled together in this order → the calls that follow: as recorded (legacy turns), and now.
  it.each([
    [
      ['fan.t/t1', 'fan.c/c1'],
      ['fan.c/c2', 'fan.t/t2'],
      ['fan.t/t2', 'fan.c/c2'],
    ],
    [
      ['fan.c/c1', 'fan.t/t1'],
      ['fan.c/c2', 'fan.t/t2'],
      ['fan.t/t2', 'fan.c/c2'],
    ],
    [
      ['fan.t/t1', 'fan.s/s1'],
      ['fan.s/s2', 'fan.t/t2'],
      ['fan.t/t2', 'fan.s/s2'],
    ],
    [
      ['fan.s/s1', 'fan.t/t1'],
      ['fan.s/s2', 'fan.t/t2'],
      ['fan.t/t2', 'fan.s/s2'],
    ],
    [
      ['fan.m/m1[0]/mt', 'fan.t/t1'],
      ['fan.t/t2', 'fan.m/m2'],
      ['fan.t/t2', 'fan.m/m2'],
    ],
    [
      ['fan.t/t1', 'fan.m/m1[0]/mt'],
      ['fan.t/t2', 'fan.m/m2'],
      ['fan.t/t2', 'fan.m/m2'],
    ],
    [
      ['fan.c/c1', 'fan.s/s1', 'fan.t/t1'],
      ['fan.c/c2', 'fan.s/s2', 'fan.t/t2'],
      ['fan.t/t2', 'fan.c/c2', 'fan.s/s2'],
    ],
  ])('settled %j: the next calls come as %j (legacy turns), %j (now)', async (first, legacy, now) => {
    expect(await callsAfter(first, true)).toEqual(legacy);
    expect(await callsAfter(first, false)).toEqual(now);
  });
});
