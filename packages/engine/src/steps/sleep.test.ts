import { describe, expect, it } from 'vitest';
import { interpret } from '../interpreter/interpret.ts';
import { stepIssues, testFlow } from '../test-support/flows.ts';
import { MemoryHost } from '../test-support/memory-host.ts';

describe('sleep schema', () => {
  it.each(['500ms', '30s', '1.5m', '24h', '7d'])('accepts the duration %s', (duration) => {
    expect(stepIssues({ id: 's', type: 'sleep', duration })).toEqual([]);
  });

  it.each<[string, unknown, RegExp]>([
    ['no unit', '30', /must be a duration such as "500ms", "30s", "5m", "24h" or "7d"/],
    ['words', 'soon', /must be a duration/],
    ['a number', 30, /expected string/],
  ])('rejects %s', (_name, duration, message) => {
    expect(stepIssues({ id: 's', type: 'sleep', duration })).toContainEqual({
      stepId: 's',
      path: 'steps[0].duration',
      message: expect.stringMatching(message),
    });
  });
});

describe('sleep handler', () => {
  it('asks the host for a durable timer in milliseconds and outputs when it was due', async () => {
    const timers: [string, number][] = [];
    const host = new MemoryHost();
    host.sleep = async (id, ms) => {
      timers.push([id, ms]);
      return { until: '2026-05-01T00:00:01.500Z' };
    };
    const flow = testFlow([
      { id: 'nap', type: 'sleep', duration: '1.5s' },
      { id: 'after', type: 'transform', value: '=steps.nap.output.until' },
    ]);
    expect(await interpret(flow, null, host)).toBe('2026-05-01T00:00:01.500Z');
    expect(timers).toEqual([['nap', 1500]]);
    expect(host.events).toContainEqual({
      type: 'step.started',
      stepId: 'nap',
      stepType: 'sleep',
      input: { duration: '1.5s' },
    });
    expect(host.events).toContainEqual({
      type: 'step.completed',
      stepId: 'nap',
      output: { until: '2026-05-01T00:00:01.500Z' },
    });
  });

  it('resumes from the journaled wake-up time on replay', async () => {
    const host = new MemoryHost({
      journal: { nap: { output: { until: '2025-12-31T23:59:59.000Z' } } },
      stopAtNew: true,
    });
    const flow = testFlow([{ id: 'nap', type: 'sleep', duration: '1h' }]);
    expect(await interpret(flow, null, host)).toEqual({ until: '2025-12-31T23:59:59.000Z' });
    expect(host.commands).toEqual([]);
  });
});
