/**
 * Reading a timeline at a moment and putting timelines together: where a time falls in the
 * events, a bar as it was after event k (what the run debugger's scrubber draws), and a child
 * run's own timeline nested under the bar of the step that started it.
 */
import type { RunEvent } from './events.ts';
import type { BarStatus, TimelineBar, TimelineSegment } from './timeline.ts';

/** Where `time` falls in the events: the index of the last event at or before it (-1 before the first). */
export function eventIndexAt(events: readonly Pick<RunEvent, 'at'>[], time: number): number {
  let low = 0;
  let high = events.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (events[middle]!.at <= time) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

/**
 * A bar as it was after the event with seq `seq`, that event stamped `time`: the segments begun
 * by then, the open ones cut at `time`, and the status then (`pending` before it started).
 */
export function barAt(
  bar: TimelineBar,
  seq: number,
  time: number,
): { status: BarStatus | 'pending'; segments: TimelineSegment[] } {
  const first = bar.segments[0];
  if (!first || first.startSeq > seq) return { status: 'pending', segments: [] };
  const segments: TimelineSegment[] = [];
  let current: TimelineSegment | null = null;
  for (const segment of bar.segments) {
    if (segment.startSeq > seq) break;
    if (segment.endSeq !== null && segment.endSeq <= seq) {
      segments.push(segment);
      continue;
    }
    // Begun by then, not yet ended: cut at `time` (an attempt scheduled after a backoff may not have begun).
    if (segment.start <= time) {
      current = { ...segment, end: time, endSeq: null };
      segments.push(current);
    }
    break;
  }
  const last = bar.segments.at(-1)!;
  // Everything the bar ever did had ended by then.
  if (!current && last.endSeq !== null && last.endSeq <= seq) return { status: bar.status, segments };
  const latest = current ?? segments.at(-1);
  return { status: latest ? statusOf(latest) : 'running', segments };
}

/**
 * A child run's timeline nested under its `child-run` bar: its bars follow that bar (after the
 * bars already under it) one level deeper, with ids prefixed by the child bar's so they stay
 * unique, and the child bar takes the child run's own segments (its queueing included).
 */
export function nestTimeline(
  bars: readonly TimelineBar[],
  childBar: string,
  child: readonly TimelineBar[],
): TimelineBar[] {
  const at = bars.findIndex((bar) => bar.id === childBar);
  const host = bars[at];
  if (!host || host.childRunId === undefined) return [...bars];
  const runId = host.childRunId;
  let end = at + 1;
  while (end < bars.length && bars[end]!.depth > host.depth) end++;
  const runBar = child.find((bar) => bar.kind === 'run');
  const nested = child
    .filter((bar) => bar.kind !== 'run')
    .map((bar) => ({
      ...bar,
      id: `${childBar}>${bar.id}`,
      parentId: bar.parentId === null ? childBar : `${childBar}>${bar.parentId}`,
      depth: bar.depth + host.depth + 1,
      runId: bar.runId ?? runId,
    }));
  const updated = runBar ? { ...host, segments: runBar.segments, status: runBar.status } : host;
  return [...bars.slice(0, at), updated, ...bars.slice(at + 1, end), ...nested, ...bars.slice(end)];
}

function statusOf(segment: TimelineSegment): BarStatus {
  switch (segment.kind) {
    case 'work':
      return 'running';
    case 'retry':
      return 'retrying';
    case 'wait':
      switch (segment.reason) {
        case 'backoff':
          return 'retrying';
        case 'child':
          return 'running';
        case 'approval':
        case 'sleep':
        case 'queued':
          return 'waiting';
      }
  }
}
