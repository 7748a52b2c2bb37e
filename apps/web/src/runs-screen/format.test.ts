import { describe, expect, it } from 'vitest';
import {
  formatCost,
  formatCount,
  formatDuration,
  formatTokens,
  formatUsd,
  fromLocalInput,
  toLocalInput,
} from './format.ts';
import { rowWindow, wantsMore } from './row-window.ts';

describe('formatting a run', () => {
  it('writes durations at the scale they have', () => {
    expect(formatDuration(0)).toBe('0 ms');
    expect(formatDuration(840)).toBe('840 ms');
    expect(formatDuration(1234)).toBe('1.23 s');
    expect(formatDuration(42_500)).toBe('42.5 s');
    expect(formatDuration(3 * 60_000 + 7000)).toBe('3 min 7 s');
    expect(formatDuration(2 * 3_600_000 + 5 * 60_000)).toBe('2 h 5 min');
  });

  it('writes token counts in and out', () => {
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1234)).toBe('1.2k');
    expect(formatCount(56_789)).toBe('57k');
    expect(formatCount(3_400_000)).toBe('3.4M');
    expect(formatTokens({ input: 1500, output: 42 })).toBe('1.5k → 42');
    expect(formatTokens(null)).toBe('—');
  });

  it('writes money without hiding small amounts', () => {
    expect(formatUsd(0)).toBe('$0');
    expect(formatUsd(0.000123)).toBe('$0.00012');
    expect(formatUsd(0.5)).toBe('$0.50');
    expect(formatUsd(1234.4)).toBe('$1,234');
  });

  it('never passes an unpriced model off as free', () => {
    expect(formatCost(0, [])).toEqual({ text: '$0', title: 'mock and fixture turns cost nothing' });
    expect(formatCost(0.02, [])).toEqual({ text: '$0.02', title: '' });
    expect(formatCost(0.02, ['local:llama'])).toEqual({ text: '$0.02 +?', title: '$0.02; no price for local:llama' });
    expect(formatCost(null, ['local:llama'])).toEqual({ text: 'no price', title: 'no price for local:llama' });
    expect(formatCost(null, [])).toEqual({ text: '—', title: 'no model turns' });
  });

  it('round-trips a datetime-local value', () => {
    const at = new Date(2024, 4, 1, 9, 30).getTime();
    expect(toLocalInput(at)).toBe('2024-05-01T09:30');
    expect(fromLocalInput('2024-05-01T09:30')).toBe(at);
    expect(fromLocalInput('')).toBeUndefined();
    expect(toLocalInput(undefined)).toBe('');
  });
});

describe('rowWindow', () => {
  it('renders what is in view plus a few rows either side', () => {
    expect(rowWindow(0, 400, 40, 100_000, 5)).toEqual({ first: 0, last: 15 });
    expect(rowWindow(40 * 1000, 400, 40, 100_000, 5)).toEqual({ first: 995, last: 1015 });
    // At the very end the window stops at the last row.
    expect(rowWindow(40 * 99_990, 400, 40, 100_000, 5)).toEqual({ first: 99_985, last: 100_000 });
    expect(rowWindow(0, 400, 40, 0)).toEqual({ first: 0, last: 0 });
    // Scrolled past the end (the list just shrank): nothing to draw, never a negative span.
    expect(rowWindow(40 * 500, 400, 40, 10, 5)).toEqual({ first: 10, last: 10 });
  });

  it('asks for more when the window nears the end', () => {
    expect(wantsMore({ first: 0, last: 15 }, 100, 40)).toBe(false);
    expect(wantsMore({ first: 50, last: 65 }, 100, 40)).toBe(true);
  });
});
