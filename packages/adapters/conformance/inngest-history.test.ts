import { describe, expect, it } from 'vitest';
import { calledSteps, type InngestTraceSpan, isCallStep } from './inngest-history.ts';

const span = (name: string, stepOp: string | null, queuedAt: string): InngestTraceSpan => ({
  name,
  stepOp,
  status: 'COMPLETED',
  queuedAt,
  startedAt: queuedAt,
  childrenSpans: [],
});

describe('the calls in an Inngest run trace', () => {
  it('keeps the step.run spans of checkpoints, in the order Inngest queued them', () => {
    // The shape `runTrace` gives for a Weft run (children trimmed to the fields read here).
    const root: InngestTraceSpan = {
      ...span('Run', null, '2026-01-01T00:00:00.000Z'),
      childrenSpans: [
        span('@weft:seed', 'RUN', '2026-01-01T00:00:00.001Z'),
        span('agent/llm#3', 'RUN', '2026-01-01T00:00:00.030Z'),
        span('s6', 'RUN', '2026-01-01T00:00:00.010Z'),
        span('gate#decided', 'RUN', '2026-01-01T00:00:00.040Z'),
        span('gate#wait', 'WAIT_FOR_EVENT', '2026-01-01T00:00:00.041Z'),
        span('nap#until', 'RUN', '2026-01-01T00:00:00.050Z'),
        span('nap', 'SLEEP', '2026-01-01T00:00:00.051Z'),
        span('kid#prepare', 'RUN', '2026-01-01T00:00:00.060Z'),
        span('kid', 'INVOKE', '2026-01-01T00:00:00.061Z'),
        span('s7', 'RUN', '2026-01-01T00:00:00.070Z'),
        span('@weft:completed', 'RUN', '2026-01-01T00:00:00.080Z'),
        span('Finalization', null, '2026-01-01T00:00:00.090Z'),
      ],
    };
    expect(calledSteps(root)).toEqual(['s6', 'agent/llm#3', 's7']);
  });

  it('tells checkpoint ids from bookkeeping steps', () => {
    expect(['s1', 'agent/llm#3', 'loop>x'].every(isCallStep)).toBe(true);
    expect(['@weft:seed', 'a#prepare', 'a#decided', 'a#until', 'a#timed-out', 'a#journal'].some(isCallStep)).toBe(
      false,
    );
  });
});
