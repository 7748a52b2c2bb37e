import { describe, expect, it } from 'vitest';
import { RunInterrupt, StepFailedError } from '../errors.ts';
import type { ApprovalOutcome } from '../interpreter/host.ts';
import { interpret } from '../interpreter/interpret.ts';
import type { Json } from '../json.ts';
import { stepIssues, testFlow } from '../test-support/flows.ts';
import { eventTrail, MemoryHost } from '../test-support/memory-host.ts';

const at = '2026-01-02T03:04:05.000Z';

function approvalFlow(extra: Record<string, unknown> = {}) {
  return testFlow([
    { id: 'ok', type: 'approval', prompt: 'Refund {{ input.amount }} EUR?', ...extra },
    { id: 'after', type: 'transform', value: '=steps.ok.output.approved' },
  ]);
}

describe('approval schema', () => {
  it('accepts a prompt with a timeout and a timeout policy', () => {
    expect(stepIssues({ id: 'a', type: 'approval', prompt: 'ok?', timeout: '24h', onTimeout: 'approve' })).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['a missing prompt', { prompt: undefined }, 'steps[0].prompt', /expected string/],
    [
      'an unknown onTimeout',
      { onTimeout: 'maybe' },
      'steps[0].onTimeout',
      /expected one of "reject"\|"approve"\|"fail"/,
    ],
    ['a timeout that is not a duration', { timeout: 'tomorrow' }, 'steps[0].timeout', /a duration such as "500ms"/],
    [
      'a prompt template that does not parse',
      { prompt: 'ok {{ input. }}' },
      'steps[0].prompt',
      /expected a property name/,
    ],
  ])('rejects %s', (_name, change, path, message) => {
    const issues = stepIssues({ id: 'a', type: 'approval', prompt: 'ok?', ...change });
    expect(issues).toContainEqual({ stepId: 'a', path, message: expect.stringMatching(message) });
  });
});

describe('approval handler', () => {
  it('asks the host with the rendered prompt and parks until someone decides', async () => {
    const host = new MemoryHost();
    await expect(interpret(approvalFlow({ timeout: '1h' }), { amount: 40 }, host)).rejects.toBeInstanceOf(RunInterrupt);
    expect(host.commands).toEqual([{ op: 'approval', id: 'ok', prompt: 'Refund 40 EUR?' }]);
    expect(host.events).toEqual([
      { type: 'step.started', stepId: 'ok', stepType: 'approval', input: { prompt: 'Refund 40 EUR?' } },
      { type: 'approval.requested', stepId: 'ok', prompt: 'Refund 40 EUR?', timeoutMs: 3_600_000 },
    ]);
  });

  it('hands the host the wait as timeoutMs, and no timeout when there is none', async () => {
    const requests: unknown[] = [];
    const host = new MemoryHost();
    host.waitForApproval = async (id, request) => {
      requests.push({ id, request });
      return { kind: 'decided', approved: true, by: null, comment: null, at };
    };
    await interpret(approvalFlow({ timeout: '30m' }), { amount: 1 }, host);
    await interpret(approvalFlow(), { amount: 2 }, host);
    expect(requests).toEqual([
      { id: 'ok', request: { prompt: 'Refund 1 EUR?', timeoutMs: 1_800_000 } },
      { id: 'ok', request: { prompt: 'Refund 2 EUR?' } },
    ]);
  });

  it.each<[string, ApprovalOutcome, Json]>([
    [
      'approved',
      { kind: 'decided', approved: true, by: 'ada', comment: 'fine', at },
      { approved: true, by: 'ada', comment: 'fine', at },
    ],
    [
      'rejected',
      { kind: 'decided', approved: false, by: 'bob', comment: null, at },
      { approved: false, by: 'bob', comment: null, at },
    ],
  ])('outputs the decision when %s', async (_name, outcome, output) => {
    const host = new MemoryHost({ approvals: { ok: outcome } });
    expect(await interpret(approvalFlow(), { amount: 1 }, host)).toBe((output as { approved: boolean }).approved);
    expect(host.events).toContainEqual({ type: 'step.completed', stepId: 'ok', output });
    expect(host.events).toContainEqual({
      type: 'approval.resolved',
      stepId: 'ok',
      approved: (output as { approved: boolean }).approved,
      by: (output as { by: string }).by,
      comment: (output as { comment: string | null }).comment,
      timedOut: false,
    });
  });

  it.each<['reject' | 'approve' | undefined, boolean]>([
    [undefined, false],
    ['reject', false],
    ['approve', true],
  ])('on a timeout with onTimeout %s, outputs approved %s by "timeout"', async (onTimeout, approved) => {
    const host = new MemoryHost({ approvals: { ok: { kind: 'timed-out', at } } });
    const flow = approvalFlow({ timeout: '1h', ...(onTimeout ? { onTimeout } : {}) });
    expect(await interpret(flow, { amount: 1 }, host)).toBe(approved);
    expect(host.events).toContainEqual({
      type: 'step.completed',
      stepId: 'ok',
      output: { approved, by: 'timeout', comment: null, at },
    });
    expect(host.events).toContainEqual({
      type: 'approval.resolved',
      stepId: 'ok',
      approved,
      by: 'timeout',
      comment: null,
      timedOut: true,
    });
  });

  it('fails the run on a timeout with onTimeout fail', async () => {
    const host = new MemoryHost({ approvals: { ok: { kind: 'timed-out', at } } });
    const error = await interpret(approvalFlow({ timeout: '2h', onTimeout: 'fail' }), { amount: 1 }, host).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(StepFailedError);
    expect(error).toMatchObject({ stepId: 'ok', message: 'approval timed out after 2h' });
    expect(eventTrail(host.events)).toEqual(['started:ok', 'requested:ok', 'failed:ok']);
  });
});
