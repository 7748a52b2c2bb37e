import { describe, expect, it } from 'vitest';
import { StepFailedError } from '../errors.ts';
import { interpret } from '../interpreter/interpret.ts';
import { stepIssues, testFlow } from '../test-support/flows.ts';
import { eventTrail, MemoryHost } from '../test-support/memory-host.ts';

describe('fail schema', () => {
  it('accepts a message template', () => {
    expect(stepIssues({ id: 'f', type: 'fail', message: 'bad {{ input.x }}' })).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['a missing message', { message: undefined }, 'steps[0].message', /expected string/],
    ['a message that is not text', { message: { text: 'x' } }, 'steps[0].message', /expected string/],
    ['a retry policy with 0 attempts', { retry: { maxAttempts: 0 } }, 'steps[0].retry.maxAttempts', />=1/],
  ])('rejects %s', (_name, change, path, message) => {
    const issues = stepIssues({ id: 'f', type: 'fail', message: 'x', ...change });
    expect(issues).toContainEqual({ stepId: 'f', path, message: expect.stringMatching(message) });
  });
});

describe('fail handler', () => {
  it('ends the run with its rendered message and runs nothing after it', async () => {
    const host = new MemoryHost();
    const flow = testFlow([
      { id: 'stop', type: 'fail', message: 'ticket {{ input.id }} is spam' },
      { id: 'never', type: 'transform', value: 1 },
    ]);
    const error = await interpret(flow, { id: 9 }, host).catch((e) => e);
    expect(error).toBeInstanceOf(StepFailedError);
    expect(error).toMatchObject({ stepId: 'stop', message: 'ticket 9 is spam' });
    expect(host.events).toEqual([
      { type: 'step.started', stepId: 'stop', stepType: 'fail', input: { message: 'ticket 9 is spam' } },
      {
        type: 'step.failed',
        stepId: 'stop',
        error: { name: 'StepFailedError', message: 'ticket 9 is spam', code: 'step_failed', stepId: 'stop' },
      },
    ]);
  });

  it('fails every enclosing step with the same error', async () => {
    const host = new MemoryHost();
    const flow = testFlow([
      {
        id: 'route',
        type: 'branch',
        cases: [{ when: '=input.spam', steps: [{ id: 'stop', type: 'fail', message: 'spam' }] }],
      },
      { id: 'never', type: 'transform', value: 1 },
    ]);
    await expect(interpret(flow, { spam: true }, host)).rejects.toMatchObject({
      stepId: 'route/stop',
      message: 'spam',
    });
    expect(eventTrail(host.events)).toEqual([
      'started:route',
      'started:route/stop',
      'failed:route/stop',
      'failed:route',
    ]);
    expect(host.events.at(-1)).toMatchObject({ error: { stepId: 'route/stop', message: 'spam' } });
    expect(await interpret(flow, { spam: false }, new MemoryHost())).toBe(1);
  });

  it('is not retried: the host is never asked to run it', async () => {
    let calls = 0;
    const host = new MemoryHost({
      execute: () => {
        calls++;
        return null;
      },
    });
    const flow = testFlow([{ id: 'stop', type: 'fail', message: 'no', retry: { maxAttempts: 5 } }]);
    await expect(interpret(flow, null, host)).rejects.toThrow('no');
    expect(calls).toBe(0);
  });
});
