import { describe, expect, it } from 'vitest';
import { interpret } from '../interpreter/interpret.ts';
import { testFlow } from '../test-support/flows.ts';
import { MemoryHost } from '../test-support/memory-host.ts';
import { createExecutor } from '../test-support/model.ts';
import type { RunEvent, RunEventInput } from './events.ts';
import { applyEvent, initialRunState, runState, stepOf } from './reducer.ts';

/** Stamps inputs as a store would: seq from 1, `at` from the given clock readings. */
function stamp(events: readonly RunEventInput[], at: readonly number[] = []): RunEvent[] {
  return events.map((event, index) => ({ ...event, runId: 'r1', seq: index + 1, at: at[index] ?? 1000 + index }));
}

const started = (stepId: string, stepType = 'tool', extra: Partial<RunEventInput> = {}): RunEventInput =>
  ({ type: 'step.started', stepId, stepType, ...extra }) as RunEventInput;
const runStarted: RunEventInput = {
  type: 'run.started',
  flowId: 'triage',
  flowVersion: 3,
  input: { q: 1 },
  backend: 'inprocess',
};
const error = { name: 'Error', message: 'boom' };

describe('runState: the run', () => {
  it('starts running with the flow, version, backend and input, stamped at its first event', () => {
    const state = runState(stamp([runStarted], [5000]));
    expect(state).toMatchObject({
      status: 'running',
      flowId: 'triage',
      flowVersion: 3,
      backend: 'inprocess',
      input: { q: 1 },
      startedAt: 5000,
      endedAt: null,
      seq: 1,
    });
  });

  it.each<[string, RunEventInput, object]>([
    [
      'completed',
      { type: 'run.completed', output: { answer: 42 } },
      { status: 'completed', output: { answer: 42 }, error: null },
    ],
    ['failed', { type: 'run.failed', error }, { status: 'failed', error, output: null }],
    ['cancelled', { type: 'run.cancelled', reason: 'user' }, { status: 'cancelled' }],
  ])('ends %s, with its end time', (_name, last, expected) => {
    const state = runState(stamp([runStarted, last], [1000, 4000]));
    expect(state).toMatchObject({ ...expected, startedAt: 1000, endedAt: 4000, seq: 2 });
  });

  it('is a pure fold: the state at event k only depends on events 0..k', () => {
    const events = stamp([
      runStarted,
      started('a'),
      { type: 'step.completed', stepId: 'a', output: 1 },
      { type: 'run.completed', output: 1 },
    ]);
    const whole = runState(events);
    expect(runState(events.slice(0, 2)).steps.a!.status).toBe('running');
    expect(runState(events)).toEqual(whole);
    let incremental = initialRunState();
    for (const event of events) incremental = applyEvent(incremental, event);
    expect(incremental).toEqual(whole);
  });

  it('folds bare, unstamped events (no times, no seq)', () => {
    const state = runState([started('a'), { type: 'step.completed', stepId: 'a', output: 1 }]);
    expect(state.seq).toBe(0);
    expect(state.steps.a).toMatchObject({ status: 'completed', startedAt: null, endedAt: null, durationMs: null });
  });
});

describe('runState: steps', () => {
  it('keeps steps in start order with their type, parent and input', () => {
    const state = runState(
      stamp([
        started('agent', 'llm', { input: { prompt: 'hi' } }),
        started('agent/llm#1', 'model-turn', { parentId: 'agent' }),
        started('agent/tool#1.0', 'tool-call', { parentId: 'agent', input: { tool: 'add', args: {} } }),
      ]),
    );
    expect(state.order).toEqual(['agent', 'agent/llm#1', 'agent/tool#1.0']);
    expect(state.steps.agent).toMatchObject({
      stepType: 'llm',
      parentId: null,
      input: { prompt: 'hi' },
      status: 'running',
    });
    expect(state.steps['agent/tool#1.0']).toMatchObject({
      stepType: 'tool-call',
      parentId: 'agent',
      input: { tool: 'add', args: {} },
    });
  });

  it('measures a duration from the started and ended times', () => {
    const state = runState(
      stamp(
        [
          started('a'),
          started('b'),
          { type: 'step.completed', stepId: 'a', output: 1 },
          { type: 'step.failed', stepId: 'b', error },
        ],
        [1000, 1200, 1750, 3200],
      ),
    );
    expect(state.steps.a).toMatchObject({
      status: 'completed',
      output: 1,
      startedAt: 1000,
      endedAt: 1750,
      durationMs: 750,
    });
    expect(state.steps.b).toMatchObject({ status: 'failed', error, startedAt: 1200, endedAt: 3200, durationMs: 2000 });
  });

  it('keeps the usage of a completed model turn', () => {
    const usage = { inputTokens: 10, outputTokens: 3, totalTokens: 13 };
    const state = runState(
      stamp([started('a/llm#1', 'model-turn'), { type: 'step.completed', stepId: 'a/llm#1', output: {}, usage }]),
    );
    expect(state.steps['a/llm#1']!.usage).toEqual(usage);
  });

  it('accumulates streamed text, and starts it over on a retry', () => {
    const id = 'agent/llm#1';
    const events = stamp([
      started(id, 'model-turn'),
      { type: 'step.delta', stepId: id, text: 'Hel' },
      { type: 'step.delta', stepId: id, text: 'lo' },
    ]);
    expect(runState(events).steps[id]!.text).toBe('Hello');
    const retried = runState([
      ...events,
      { type: 'step.retrying', stepId: id, attempt: 1, error, delayMs: 1000 },
      { type: 'step.delta', stepId: id, text: 'Hi' },
    ]);
    expect(retried.steps[id]!.text).toBe('Hi');
  });

  it('counts attempts across retries and keeps the last error while retrying', () => {
    const events: RunEventInput[] = [
      started('call'),
      { type: 'step.retrying', stepId: 'call', attempt: 1, error: { name: 'Error', message: 'first' }, delayMs: 1000 },
      { type: 'step.retrying', stepId: 'call', attempt: 2, error: { name: 'Error', message: 'second' }, delayMs: 2000 },
    ];
    expect(runState(events.slice(0, 1)).steps.call!.attempts).toBe(1);
    expect(runState(events).steps.call).toMatchObject({
      status: 'retrying',
      attempts: 3,
      error: { message: 'second' },
    });
    const done = runState([...events, { type: 'step.completed', stepId: 'call', output: 'ok' }]);
    expect(done.steps.call).toMatchObject({ status: 'completed', attempts: 3, output: 'ok' });
  });

  it('records the child run of a spawn step', () => {
    const state = runState([
      started('child', 'spawn'),
      { type: 'child.started', stepId: 'child', childRunId: 'run-child-1', flowId: 'summarize' },
    ]);
    expect(state.steps.child).toMatchObject({ stepType: 'spawn', childRunId: 'run-child-1', status: 'running' });
  });

  it('creates a step it hears about before its start, and types it when the start arrives', () => {
    const state = runState([{ type: 'step.completed', stepId: 'x', output: 1 }, started('x', 'code')]);
    expect(state.steps.x!.stepType).toBe('code');
    expect(state.order).toEqual(['x']);
  });
});

describe('runState: approvals', () => {
  const requested: RunEventInput = { type: 'approval.requested', stepId: 'ok', prompt: 'Refund?', timeoutMs: 1000 };
  const resolved = (approved: boolean, timedOut = false, stepId = 'ok'): RunEventInput => ({
    type: 'approval.resolved',
    stepId,
    approved,
    by: timedOut ? 'timeout' : 'ada',
    comment: null,
    timedOut,
  });

  it('waits on a requested approval, and runs again once it is resolved', () => {
    const waiting = runState([runStarted, started('ok', 'approval'), requested]);
    expect(waiting.status).toBe('waiting');
    expect(waiting.steps.ok).toMatchObject({
      status: 'waiting',
      approval: { prompt: 'Refund?', approved: null, by: null, comment: null, timedOut: false },
    });
    const resumed = runState([runStarted, started('ok', 'approval'), requested, resolved(true)]);
    expect(resumed.status).toBe('running');
    expect(resumed.steps.ok).toMatchObject({
      status: 'running',
      approval: { prompt: 'Refund?', approved: true, by: 'ada', timedOut: false },
    });
  });

  it('records a timeout', () => {
    const state = runState([runStarted, requested, resolved(false, true)]);
    expect(state.steps.ok!.approval).toEqual({
      prompt: 'Refund?',
      approved: false,
      by: 'timeout',
      comment: null,
      timedOut: true,
    });
  });

  it('keeps waiting while another approval is still open', () => {
    const other: RunEventInput = { type: 'approval.requested', stepId: 'other', prompt: 'Also?' };
    const state = runState([runStarted, requested, other, resolved(true)]);
    expect(state.status).toBe('waiting');
    expect(runState([runStarted, requested, other, resolved(true), resolved(true, false, 'other')]).status).toBe(
      'running',
    );
  });

  it('stops waiting when the waiting approval fails (onTimeout: fail)', () => {
    const state = runState([
      runStarted,
      started('ok', 'approval'),
      requested,
      { type: 'step.failed', stepId: 'ok', error },
    ]);
    expect(state.steps.ok!.status).toBe('failed');
    expect(state.status).toBe('running');
  });
});

describe('runState over a real run', () => {
  it('folds the events of an agent run into completed steps with parents and usage', async () => {
    const host = new MemoryHost({
      execute: createExecutor({ tools: { add: (args) => (args as { a: number }).a + 1 } }),
    });
    const flow = testFlow(
      [{ id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'go', tools: ['add'], maxSteps: 3 }],
      {},
      { hostTools: ['add'] },
    );
    const output = await interpret(flow, null, host, {
      hostTools: { add: { description: 'add', parameters: {} } },
      fixtures: {
        agent: [
          { toolCalls: [{ tool: 'add', args: { a: 1 } }], usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 } },
          { text: 'two' },
        ],
      },
    });
    const state = runState(stamp([runStarted, ...host.events, { type: 'run.completed', output }]));
    expect(state.status).toBe('completed');
    expect(state.order).toEqual(['agent', 'agent/llm#1', 'agent/tool#1.0', 'agent/llm#2']);
    expect(Object.values(state.steps).map((step) => step.status)).toEqual([
      'completed',
      'completed',
      'completed',
      'completed',
    ]);
    expect(state.steps['agent/tool#1.0']).toMatchObject({ parentId: 'agent', stepType: 'tool-call', output: 2 });
    expect(state.steps['agent/llm#1']!.usage).toEqual({ inputTokens: 3, outputTokens: 1, totalTokens: 4 });
  });
});

describe('runState: step ids that are names of Object.prototype members', () => {
  const names = ['toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__proto__', 'constructor'];

  it('keeps each as a step of its own and never writes to Object.prototype', () => {
    const events = names.flatMap((id) => [
      started(id, 'transform'),
      { type: 'step.completed', stepId: id, output: { id } } as RunEventInput,
    ]);
    const state = runState(stamp([runStarted, ...events]));
    expect(state.order).toEqual(names);
    expect(Object.keys(state.steps)).toEqual(names);
    for (const id of names) expect(stepOf(state, id)).toMatchObject({ status: 'completed', output: { id } });
    expect(Object.getOwnPropertyNames(Object.prototype).filter((name) => !BUILT_IN.has(name))).toEqual([]);
    expect(({} as Record<string, unknown>).status).toBeUndefined();
  });

  it('does not mistake an inherited member for a step that has not started', () => {
    const state = runState(stamp([runStarted]));
    expect(stepOf(state, 'toString')).toBeUndefined();
    // A state that went through JSON (the API, the browser) is read the same way.
    expect(stepOf(JSON.parse(JSON.stringify(state)), 'toString')).toBeUndefined();
  });

  it('runs a flow whose step ids are prototype member names and reports every step', async () => {
    const flow = testFlow([
      { id: 'toString', type: 'transform', value: 1 },
      { id: 'valueOf', type: 'transform', value: 2 },
      { id: 'sum', type: 'transform', value: '=steps.toString.output + steps.valueOf.output' },
    ]);
    const host = new MemoryHost();
    expect(await interpret(flow, null, host)).toBe(3);
    const state = runState(stamp(host.events));
    expect(state.order).toEqual(['toString', 'valueOf', 'sum']);
    expect(Object.values(state.steps).map((step) => step.status)).toEqual(['completed', 'completed', 'completed']);
  });
});

const BUILT_IN = new Set(Object.getOwnPropertyNames(Object.prototype));
