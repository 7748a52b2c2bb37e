import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeltaBatcher } from './delta-batcher.ts';

describe('DeltaBatcher', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sends the first delta at once, then at most one batch per interval, and the rest on flush', () => {
    const emitted: { at: number; text: string }[] = [];
    const batcher = new DeltaBatcher((text) => emitted.push({ at: Date.now(), text }), 50);
    const start = Date.now();
    for (let i = 0; i < 20; i++) {
      batcher.push(`${i},`);
      vi.advanceTimersByTime(10);
    }
    batcher.flush();
    const gaps = emitted.slice(1).map((e, i) => e.at - (emitted[i]?.at ?? 0));
    expect(emitted[0]).toEqual({ at: start, text: '0,' });
    expect(emitted.length).toBeLessThanOrEqual(6);
    expect(gaps.slice(0, -1).every((gap) => gap >= 50)).toBe(true);
    expect(emitted.map((e) => e.text).join('')).toBe(Array.from({ length: 20 }, (_, i) => `${i},`).join(''));
  });

  it('never lets a failing listener escape, even from its timer', () => {
    const batcher = new DeltaBatcher(() => {
      throw new Error('listener broke');
    }, 50);
    batcher.push('a');
    batcher.push('b');
    expect(() => vi.advanceTimersByTime(60)).not.toThrow();
    expect(() => batcher.flush()).not.toThrow();
  });
});
