import { type RunEvent, type RunEventInput, runState } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { buildRequest, checkpointsOf, initialForm, pinTargetOf, pinValueOf, setMode } from './replay-form.ts';

let seq = 0;
const ev = (event: RunEventInput): RunEvent => ({ ...event, runId: 'src', seq: ++seq, at: seq * 10 });

const state = runState([
  ev({ type: 'run.started', flowId: 'f', flowVersion: 2, input: { topic: 'otters' }, backend: 'inprocess' }),
  ev({ type: 'step.started', stepId: 'agent', stepType: 'llm' }),
  ev({ type: 'step.started', stepId: 'agent/llm#1', stepType: 'model-turn', parentId: 'agent' }),
  ev({
    type: 'step.completed',
    stepId: 'agent/llm#1',
    output: {
      text: '',
      toolCalls: [{ id: 'c1', tool: 'add', args: { a: 1 } }],
      responseMessages: [],
      usage: { inputTokens: 1, outputTokens: 1 },
    },
  }),
  ev({ type: 'step.started', stepId: 'agent/tool#1.0', stepType: 'tool-call', parentId: 'agent' }),
  ev({ type: 'step.completed', stepId: 'agent/tool#1.0', output: 2 }),
  ev({ type: 'step.started', stepId: 'agent/llm#2', stepType: 'model-turn', parentId: 'agent' }),
  ev({ type: 'step.completed', stepId: 'agent/llm#2', output: { text: 'two', toolCalls: [], responseMessages: [] } }),
  ev({ type: 'step.completed', stepId: 'agent', output: { text: 'two' } }),
  ev({ type: 'step.started', stepId: 'shape', stepType: 'transform' }),
  ev({ type: 'step.completed', stepId: 'shape', output: 'two' }),
  ev({ type: 'run.completed', output: 'two' }),
]);

describe('checkpoints and pins', () => {
  it('lists the calls a replay can reuse, pin or run live, in start order', () => {
    expect(checkpointsOf(state).map((c) => c.id)).toEqual(['agent/llm#1', 'agent/tool#1.0', 'agent/llm#2']);
  });

  it('pins an llm step through its last turn, a call itself, and nothing else', () => {
    expect(pinTargetOf(state, 'agent')).toBe('agent/llm#2');
    expect(pinTargetOf(state, 'agent/tool#1.0')).toBe('agent/tool#1.0');
    expect(pinTargetOf(state, 'shape')).toBeNull();
    expect(pinTargetOf(state, 'nope')).toBeNull();
  });

  it('starts a pinned model turn from its fixture form, anything else from its output', () => {
    expect(pinValueOf(state, 'agent/llm#1')).toEqual({ text: '', toolCalls: [{ tool: 'add', args: { a: 1 } }] });
    expect(pinValueOf(state, 'agent/llm#2')).toEqual({ text: 'two' });
    expect(pinValueOf(state, 'agent/tool#1.0')).toBe(2);
  });
});

describe('buildRequest', () => {
  it('opens with the run input and, when asked, the chosen step output pinned', () => {
    const form = initialForm(state, 'agent', true, 'inprocess');
    expect(JSON.parse(form.input)).toEqual({ topic: 'otters' });
    expect(form.modes).toEqual({ 'agent/llm#2': 'pinned' });
    const built = buildRequest('src', 'agent', form);
    expect(built).toEqual({
      ok: true,
      request: {
        runId: 'src',
        from: 'agent',
        version: 'original',
        input: { topic: 'otters' },
        approvals: 'reuse',
        backend: 'inprocess',
        pins: { 'agent/llm#2': { text: 'two' } },
      },
    });
  });

  it('sends live overrides, and names every field that is not JSON', () => {
    let form = setMode(initialForm(state, 'shape', false, 'inprocess'), state, 'agent/llm#1', 'live');
    form = setMode(form, state, 'agent/tool#1.0', 'pinned');
    expect(buildRequest('src', 'shape', form)).toMatchObject({
      ok: true,
      request: { live: ['agent/llm#1'], pins: { 'agent/tool#1.0': 2 } },
    });
    const broken = { ...form, input: '{ "topic": ', pins: { 'agent/tool#1.0': '' } };
    const built = buildRequest('src', 'shape', broken);
    expect(built.ok).toBe(false);
    expect(!built.ok && built.errors.map((error) => error.field)).toEqual([
      'Flow input',
      'Pinned value of agent/tool#1.0',
    ]);
    // Back to "as planned": the pin is no longer sent (its text is kept for the user).
    const unpinned = setMode(broken, state, 'agent/tool#1.0', 'default');
    expect(unpinned.modes['agent/tool#1.0']).toBeUndefined();
  });
});
