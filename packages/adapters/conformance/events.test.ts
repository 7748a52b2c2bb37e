import type { RunEvent } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { concurrent, type EventPattern, matchEvents, renderEvents } from './events.ts';

const ran = (id: string) => [`step.started:${id}`, `step.completed:${id}`];

describe('renderEvents', () => {
  it('renders run and step events compactly, drops deltas, numbers retries', () => {
    const base = { runId: 'r', at: 0 };
    const events: RunEvent[] = [
      { ...base, seq: 1, type: 'run.started', flowId: 'f', flowVersion: 1, input: null, backend: 'x' },
      { ...base, seq: 2, type: 'step.started', stepId: 'a/llm#1', stepType: 'model-turn' },
      { ...base, seq: 3, type: 'step.delta', stepId: 'a/llm#1', text: 'hi' },
      {
        ...base,
        seq: 4,
        type: 'step.retrying',
        stepId: 'a/llm#1',
        attempt: 1,
        error: { name: 'E', message: 'm' },
        delayMs: 1,
      },
      { ...base, seq: 5, type: 'run.completed', output: null },
    ];
    expect(renderEvents(events)).toEqual([
      'run.started',
      'step.started:a/llm#1',
      'step.retrying:a/llm#1@1',
      'run.completed',
    ]);
  });
});

describe('matchEvents', () => {
  const pattern: EventPattern[] = [
    'run.started',
    'step.started:fan',
    concurrent(ran('fan.a/x'), [...ran('fan.b/y'), ...ran('fan.b/z')]),
    'step.completed:fan',
    'run.completed',
  ];

  it('accepts any interleaving of the lanes that keeps each lane in order', () => {
    const interleaved = [
      'run.started',
      'step.started:fan',
      'step.started:fan.b/y',
      'step.started:fan.a/x',
      'step.completed:fan.b/y',
      'step.started:fan.b/z',
      'step.completed:fan.a/x',
      'step.completed:fan.b/z',
      'step.completed:fan',
      'run.completed',
    ];
    expect(matchEvents(pattern, interleaved)).toEqual({ ok: true });
  });

  it('rejects a lane out of its own order', () => {
    const result = matchEvents(pattern, [
      'run.started',
      'step.started:fan',
      'step.started:fan.b/z',
      'step.completed:fan.b/z',
      ...ran('fan.b/y'),
      ...ran('fan.a/x'),
      'step.completed:fan',
      'run.completed',
    ]);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/lane 2 .*expected 'step.started:fan.b\/y'/);
  });

  it('rejects an event of the region that escapes it', () => {
    const result = matchEvents(pattern, [
      'run.started',
      'step.started:fan',
      ...ran('fan.a/x'),
      ...ran('fan.b/y'),
      'step.started:fan.b/z',
      'step.completed:fan',
      'step.completed:fan.b/z',
      'run.completed',
    ]);
    expect(!result.ok && result.message).toMatch(/unexpected 'step.completed:fan'.*|missing 'step.completed:fan.b\/z'/);
  });

  it('is exact outside concurrent groups, and reports missing and extra events', () => {
    expect(matchEvents(['a', 'b'], ['b', 'a']).ok).toBe(false);
    expect(matchEvents(['a', 'b'], ['a']).ok).toBe(false);
    expect(matchEvents(['a'], ['a', 'b'])).toEqual({ ok: false, message: "event 2: unexpected extra events 'b'" });
  });

  it('nests groups inside lanes', () => {
    const nested: EventPattern[] = [concurrent(['x1', concurrent(['p'], ['q']), 'x2'], ['y'])];
    expect(matchEvents(nested, ['y', 'x1', 'q', 'p', 'x2']).ok).toBe(true);
    expect(matchEvents(nested, ['x1', 'q', 'x2', 'p', 'y']).ok).toBe(false);
  });

  it('refuses an expectation that names an event twice', () => {
    expect(matchEvents(['a', concurrent(['a'])], ['a', 'a']).ok).toBe(false);
  });
});
