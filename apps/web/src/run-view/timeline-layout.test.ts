import type { TimelineBar } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { fitView, formatOffset, panBy, spanOf, ticks, visibleRows, xOf, zoomAt } from './timeline-layout.ts';

const bar = (id: string, depth: number, extra: Partial<TimelineBar> = {}): TimelineBar => ({
  id,
  stepId: id,
  parentId: null,
  kind: 'step',
  stepType: 'code',
  label: id,
  depth,
  status: 'completed',
  segments: [{ kind: 'work', start: 1000, end: 2000, startSeq: 1, endSeq: 2 }],
  ...extra,
});

describe('visibleRows', () => {
  const bars = [bar('each', 0), bar('each[0]', 1), bar('each[0]/a', 2), bar('each[1]', 1), bar('after', 0)];

  it('shows every row expanded by default', () => {
    expect(visibleRows(bars, new Set()).map((row) => [row.bar.id, row.expandable, row.expanded])).toEqual([
      ['each', true, true],
      ['each[0]', true, true],
      ['each[0]/a', false, false],
      ['each[1]', false, false],
      ['after', false, false],
    ]);
  });

  it('hides what is under a collapsed row', () => {
    expect(visibleRows(bars, new Set(['each[0]'])).map((row) => row.bar.id)).toEqual([
      'each',
      'each[0]',
      'each[1]',
      'after',
    ]);
    expect(visibleRows(bars, new Set(['each'])).map((row) => row.bar.id)).toEqual(['each', 'after']);
  });

  it('offers to expand a child run not loaded yet', () => {
    const rows = visibleRows([bar('sub', 0), bar('child:c1', 1, { kind: 'child-run', childRunId: 'c1' })], new Set());
    expect(rows[1]).toMatchObject({ expandable: true, expanded: false });
  });
});

describe('time axis', () => {
  it('fits the span, zooms around the pointer and pans', () => {
    const span = spanOf([bar('a', 0)], null);
    expect(span).toEqual({ start: 1000, end: 2000 });
    const view = fitView(span, 1024);
    expect(xOf(view, 1000)).toBeCloseTo(12);
    expect(xOf(view, 2000)).toBeCloseTo(1012);
    const zoomed = zoomAt(view, 500, 0.5);
    expect(zoomed.msPerPx).toBeCloseTo(view.msPerPx / 2);
    expect(xOf(zoomed, view.start + 500 * view.msPerPx)).toBeCloseTo(500);
    expect(xOf(panBy(view, 100), 1000)).toBeCloseTo(112);
  });

  it('extends a running bar to now', () => {
    const open = bar('a', 0, { segments: [{ kind: 'work', start: 1000, end: null, startSeq: 1, endSeq: null }] });
    expect(spanOf([open], 5000)).toEqual({ start: 1000, end: 5000 });
  });

  it('puts ticks at round offsets from the run start', () => {
    const view = { start: 1000, msPerPx: 10 };
    expect(ticks(view, 400, 1000).map((tick) => tick.label)).toEqual(['0', '+1 s', '+2 s', '+3 s', '+4 s']);
    expect(formatOffset(125_000, 5000)).toBe('+2 m 05 s');
    expect(formatOffset(250, 50)).toBe('+250 ms');
  });
});
