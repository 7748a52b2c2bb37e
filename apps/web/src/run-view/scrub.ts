/**
 * Moving along a run's events: by event, or by step — the next event that starts, ends, retries
 * or parks a step, skipping the streamed tokens in between (an agent run is mostly deltas).
 */
import type { RunEvent } from '@weft/engine';

export type ScrubUnit = 'event' | 'step';

export function isStepBoundary(event: Pick<RunEvent, 'type'>): boolean {
  return event.type !== 'step.delta';
}

/** The index `unit`s away from `from` in direction `direction`, kept within the events. */
export function nextIndex(
  events: readonly Pick<RunEvent, 'type'>[],
  from: number,
  direction: 1 | -1,
  unit: ScrubUnit,
): number {
  const last = events.length - 1;
  if (last < 0) return -1;
  let index = Math.min(Math.max(from + direction, 0), last);
  if (unit === 'step') {
    while (index > 0 && index < last && !isStepBoundary(events[index]!)) index += direction;
  }
  return index;
}

/**
 * Where playback is after `elapsedMs` of wall time from event `from`, at `speed` (events per
 * recorded time): the last event whose recorded time has come. A long idle stretch (an approval
 * that waited a day) plays in at most `maxIdleMs` of wall time.
 */
export function playTo(
  events: readonly Pick<RunEvent, 'at'>[],
  clock: { index: number; virtual: number },
  elapsedMs: number,
  speed: number,
  maxIdleMs = 1500,
): { index: number; virtual: number } {
  let { index, virtual } = clock;
  virtual += elapsedMs * speed;
  const next = events[index + 1];
  if (next && next.at - virtual > maxIdleMs * speed) virtual = next.at - maxIdleMs * speed;
  while (index + 1 < events.length && events[index + 1]!.at <= virtual) index++;
  return { index, virtual };
}
