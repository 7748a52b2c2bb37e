/**
 * What `node bench/backends.ts --check` fails on (the regression guard): a Weft row whose
 * ratio to its native program exceeds the row's target by more than CHECK_SLACK. Pure: no server.
 */
import { describe, expect, it } from 'vitest';
import { CHECK_SLACK, checkFailures, type ResultRow } from './backends-report.ts';

function row(vsNative: number, target: number | undefined): ResultRow {
  return {
    scenario: '256-wide parallel fan-out',
    backend: 'temporal',
    runsMs: [1, 2, 3],
    medianMs: 2,
    units: 256,
    unit: 'step',
    vsNative,
    ...(target === undefined ? {} : { target }),
  };
}

describe('bench/backends --check', () => {
  it('allows a quarter over the target', () => {
    expect(CHECK_SLACK).toBe(1.25);
  });

  it.each([
    ['under its target', 1.1, 1.2, false],
    ['over its target, within a quarter', 1.49, 1.2, false],
    ['more than a quarter over', 1.51, 1.2, true],
    ['SQLite at 1.88× against 1.5×', 1.88, 1.5, true],
    ['SQLite at 1.86× against 1.5×', 1.86, 1.5, false],
    ['a row with no target (reported only), however slow', 50, undefined, false],
  ])('%s: %s× against %s× fails: %s', (_label, vsNative, target, fails) => {
    const failures = checkFailures([row(vsNative, target)]);
    expect(failures.length > 0).toBe(fails);
    if (fails) expect(failures[0]).toContain('256-wide parallel fan-out on temporal');
  });

  it('names every failing row, and only those', () => {
    const failures = checkFailures([row(1.1, 1.2), row(2, 1.2), row(3, 1.5)]);
    expect(failures).toHaveLength(2);
    expect(failures[0]).toContain('2.00× native, target ≤ 1.2×');
    expect(failures[1]).toContain('3.00× native, target ≤ 1.5×');
  });
});
