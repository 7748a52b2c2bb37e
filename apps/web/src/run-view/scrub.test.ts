import { describe, expect, it } from 'vitest';
import { nextIndex, playTo } from './scrub.ts';

const types = ['run.started', 'step.started', 'step.delta', 'step.delta', 'step.completed', 'run.completed'] as const;
const events = types.map((type) => ({ type }));

describe('nextIndex', () => {
  it('moves by event, within the run', () => {
    expect(nextIndex(events, 1, 1, 'event')).toBe(2);
    expect(nextIndex(events, 5, 1, 'event')).toBe(5);
    expect(nextIndex(events, 0, -1, 'event')).toBe(0);
  });

  it('moves by step over streamed tokens', () => {
    expect(nextIndex(events, 1, 1, 'step')).toBe(4);
    expect(nextIndex(events, 4, -1, 'step')).toBe(1);
    expect(nextIndex([], 0, 1, 'step')).toBe(-1);
  });
});

describe('playTo', () => {
  const timed = [{ at: 0 }, { at: 100 }, { at: 250 }, { at: 100_000 }];

  it('re-enacts the recorded timings at a speed', () => {
    expect(playTo(timed, { index: 0, virtual: 0 }, 120, 1)).toEqual({ index: 1, virtual: 120 });
    expect(playTo(timed, { index: 0, virtual: 0 }, 30, 10)).toEqual({ index: 2, virtual: 300 });
  });

  it('plays a long idle stretch in at most the idle cap', () => {
    let clock = { index: 2, virtual: 250 };
    clock = playTo(timed, clock, 16, 1);
    expect(clock.index).toBe(2);
    clock = playTo(timed, clock, 1500, 1);
    expect(clock.index).toBe(3);
  });
});
