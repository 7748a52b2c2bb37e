/**
 * The timeline's geometry, apart from React so it can be tested: which rows show (collapsed
 * subtrees hidden), and the time axis — a view is a start time and a scale, zoomed around the
 * pointer and panned by dragging, with round tick steps at any zoom.
 */
import type { TimelineBar } from '@weft/engine';

export interface Row {
  bar: TimelineBar;
  /** It has rows under it, or it is a child run whose own timeline can be loaded. */
  expandable: boolean;
  expanded: boolean;
}

/** The rows to draw: every bar, less those under a collapsed one. */
export function visibleRows(bars: readonly TimelineBar[], collapsed: ReadonlySet<string>): Row[] {
  const rows: Row[] = [];
  let hiddenBelow: number | null = null;
  for (let index = 0; index < bars.length; index++) {
    const bar = bars[index]!;
    if (hiddenBelow !== null) {
      if (bar.depth > hiddenBelow) continue;
      hiddenBelow = null;
    }
    const hasChildren = (bars[index + 1]?.depth ?? -1) > bar.depth;
    const expandable = hasChildren || (bar.kind === 'child-run' && bar.runId === undefined);
    const expanded = expandable && hasChildren && !collapsed.has(bar.id);
    rows.push({ bar, expandable, expanded });
    if (hasChildren && collapsed.has(bar.id)) hiddenBelow = bar.depth;
  }
  return rows;
}

/** The time span the run covers: its first event to its last (or now, while it runs). */
export function spanOf(bars: readonly TimelineBar[], now: number | null): { start: number; end: number } {
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const bar of bars) {
    for (const segment of bar.segments) {
      start = Math.min(start, segment.start);
      end = Math.max(end, segment.end ?? now ?? segment.start);
    }
  }
  if (!Number.isFinite(start)) return { start: 0, end: 1 };
  return { start, end: Math.max(end, start + 1) };
}

export interface TimeView {
  /** The time at the left edge (ms since the epoch). */
  start: number;
  msPerPx: number;
}

export const MIN_MS_PER_PX = 0.01;
export const MAX_MS_PER_PX = 86_400_000 / 100;

/** The whole span in `width` pixels, with a little room either side. */
export function fitView(span: { start: number; end: number }, width: number): TimeView {
  const usable = Math.max(40, width - 24);
  const msPerPx = clamp((span.end - span.start) / usable, MIN_MS_PER_PX, MAX_MS_PER_PX);
  return { start: span.start - 12 * msPerPx, msPerPx };
}

/** Zoomed by `factor` (above 1 zooms out) keeping the time under pixel `x` where it is. */
export function zoomAt(view: TimeView, x: number, factor: number): TimeView {
  const time = view.start + x * view.msPerPx;
  const msPerPx = clamp(view.msPerPx * factor, MIN_MS_PER_PX, MAX_MS_PER_PX);
  return { start: time - x * msPerPx, msPerPx };
}

export function panBy(view: TimeView, dx: number): TimeView {
  return { start: view.start - dx * view.msPerPx, msPerPx: view.msPerPx };
}

export const xOf = (view: TimeView, time: number) => (time - view.start) / view.msPerPx;
export const timeOf = (view: TimeView, x: number) => view.start + x * view.msPerPx;

const STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000,
  900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000,
];

/** Ticks at a round step, about every `spacing` pixels, labelled as offsets from `origin`. */
export function ticks(view: TimeView, width: number, origin: number, spacing = 90): { x: number; label: string }[] {
  const wanted = spacing * view.msPerPx;
  const step = STEPS.find((candidate) => candidate >= wanted) ?? STEPS.at(-1)!;
  const out: { x: number; label: string }[] = [];
  const first = Math.ceil((view.start - origin) / step) * step;
  for (let offset = first; ; offset += step) {
    const x = xOf(view, origin + offset);
    if (x > width) break;
    out.push({ x, label: formatOffset(offset, step) });
    if (out.length > 200) break;
  }
  return out;
}

/** `+0`, `+250 ms`, `+1.5 s`, `+2 m 10 s`, `+1 h 05 m`. */
export function formatOffset(ms: number, step = 1): string {
  const sign = ms < 0 ? '−' : '+';
  const abs = Math.abs(ms);
  if (abs === 0) return '0';
  if (abs < 1000) return `${sign}${Math.round(abs)} ms`;
  if (abs < 60_000) return `${sign}${(abs / 1000).toFixed(step < 1000 ? 1 : 0)} s`;
  if (abs < 3_600_000) {
    const seconds = Math.round(abs / 1000);
    return `${sign}${Math.floor(seconds / 60)} m ${String(seconds % 60).padStart(2, '0')} s`;
  }
  const minutes = Math.round(abs / 60_000);
  return `${sign}${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} m`;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
