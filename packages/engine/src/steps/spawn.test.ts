import { describe, expect, it } from 'vitest';
import { StepFailedError } from '../errors.ts';
import type { FlowRef } from '../interpreter/host.ts';
import { interpret } from '../interpreter/interpret.ts';
import type { Json } from '../json.ts';
import { stepIssues, testFlow } from '../test-support/flows.ts';
import { eventTrail, MemoryHost } from '../test-support/memory-host.ts';

describe('spawn schema', () => {
  it.each(['triage', 'triage@3', 'a_b-c'])('accepts the flow reference %s', (flow) => {
    expect(stepIssues({ id: 's', type: 'spawn', flow, input: { x: '=input' } })).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['an uppercase flow id', { flow: 'Triage' }, 'steps[0].flow', /must be a flow id, optionally with a version/],
    ['version 0', { flow: 'triage@0' }, 'steps[0].flow', /"triage@3"/],
    ['input that is not an object', { input: '=input' }, 'steps[0].input', /expected record/],
    ['spawning its own flow', { flow: 'test-flow' }, 'steps[0].flow', /flow 'test-flow' spawns itself/],
  ])('rejects %s', (_name, change, path, message) => {
    const issues = stepIssues({ id: 's', type: 'spawn', flow: 'child', ...change });
    expect(issues).toContainEqual({ stepId: 's', path, message: expect.stringMatching(message) });
  });
});

describe('spawn handler', () => {
  it('starts the child flow with the evaluated input and outputs its output', async () => {
    const spawned: { ref: FlowRef; input: Json; id: string }[] = [];
    const host = new MemoryHost({
      spawn: (ref, input, id) => {
        spawned.push({ ref, input, id });
        return { summary: `child saw ${(input as { ticket: string }).ticket}` };
      },
    });
    const flow = testFlow([
      { id: 'child', type: 'spawn', flow: 'summarize@3', input: { ticket: '=input.ticket', fixed: 1 } },
      { id: 'latest', type: 'spawn', flow: 'notify' },
    ]);
    await interpret(flow, { ticket: 'T-1' }, host);
    expect(spawned).toEqual([
      { ref: { id: 'summarize', version: 3 }, input: { ticket: 'T-1', fixed: 1 }, id: 'child' },
      { ref: { id: 'notify' }, input: {}, id: 'latest' },
    ]);
    expect(host.events).toContainEqual({
      type: 'step.started',
      stepId: 'child',
      stepType: 'spawn',
      input: { flow: 'summarize@3', input: { ticket: 'T-1', fixed: 1 } },
    });
    expect(host.events).toContainEqual({
      type: 'step.completed',
      stepId: 'child',
      output: { summary: 'child saw T-1' },
    });
  });

  it('fails the step when the child run fails', async () => {
    const host = new MemoryHost({
      spawn: () => {
        throw new Error('child run failed: no such flow');
      },
    });
    const flow = testFlow([{ id: 'child', type: 'spawn', flow: 'missing' }]);
    const error = await interpret(flow, null, host).catch((e) => e);
    expect(error).toBeInstanceOf(StepFailedError);
    expect(error).toMatchObject({ stepId: 'child', message: 'child run failed: no such flow' });
    expect(eventTrail(host.events)).toEqual(['started:child', 'failed:child']);
  });

  it('is answered from the journal on replay instead of starting the child again', async () => {
    let starts = 0;
    const host = new MemoryHost({
      journal: { child: { output: 'recorded' } },
      spawn: () => {
        starts++;
        return 'new';
      },
    });
    const flow = testFlow([{ id: 'child', type: 'spawn', flow: 'other' }]);
    expect(await interpret(flow, null, host)).toBe('recorded');
    expect(starts).toBe(0);
  });
});
