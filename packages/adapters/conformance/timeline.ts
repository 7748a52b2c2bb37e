/**
 * The run debugger reads every backend's runs the same way: after each conformance case, the
 * engine's `timelineOf` over the run's stored events must give a well-formed timeline — one bar
 * for the run with the run's final status, a bar for every step that started, every bar closed
 * once the run ended, segments in order inside the run's span, and an approval's wait drawn as a
 * wait. Checked on in-process, Temporal and Inngest alike, over the whole example corpus.
 */
import { isFinalStatus, RUN_BAR_ID, type RunEvent, type RunStatus, timelineOf } from '@weft/engine';
import { expect } from 'vitest';

export function checkTimeline(adapter: string, status: RunStatus, events: readonly RunEvent[]): void {
  const bars = timelineOf(events);
  const where = (what: string) => `${adapter}: timeline: ${what}`;
  const run = bars.find((bar) => bar.id === RUN_BAR_ID);
  if (!run) throw new Error(where('no bar for the run'));
  expect(run.status, where('the run bar has the run status')).toBe(status);
  const started = new Set(events.flatMap((event) => (event.type === 'step.started' ? [event.stepId] : [])));
  const drawn = new Set(bars.map((bar) => bar.stepId));
  expect(
    [...started].filter((stepId) => !drawn.has(stepId)),
    where('steps without a bar'),
  ).toEqual([]);
  const runStart = run.segments[0]?.start ?? Number.NEGATIVE_INFINITY;
  const runEnd = run.segments.at(-1)?.end ?? Number.POSITIVE_INFINITY;
  for (const bar of bars) {
    let previous = Number.NEGATIVE_INFINITY;
    for (const segment of bar.segments) {
      if (isFinalStatus(status))
        expect(segment.end, where(`'${bar.id}' has a ${segment.kind} segment still open`)).not.toBeNull();
      expect(segment.start, where(`'${bar.id}' segments in order`)).toBeGreaterThanOrEqual(previous);
      if (segment.end !== null)
        expect(segment.end, where(`'${bar.id}' segment ends after it starts`)).toBeGreaterThanOrEqual(segment.start);
      expect(segment.start, where(`'${bar.id}' starts inside the run`)).toBeGreaterThanOrEqual(runStart);
      if (segment.end !== null)
        expect(segment.end, where(`'${bar.id}' ends inside the run`)).toBeLessThanOrEqual(runEnd);
      previous = segment.start;
    }
  }
  for (const event of events) {
    if (event.type !== 'approval.requested') continue;
    const bar = bars.find((candidate) => candidate.stepId === event.stepId);
    expect(
      bar?.segments.some((segment) => segment.kind === 'wait' && segment.reason === 'approval'),
      where(`the approval '${event.stepId}' is drawn waiting`),
    ).toBe(true);
  }
}
