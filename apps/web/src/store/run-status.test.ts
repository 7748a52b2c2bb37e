import { initialRunState, type RunEvent, type RunEventInput } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { foldEvent, formatDuration, nodeIdsOfStep, nodeRunsOf, runIsActive } from './run-status.ts';

let seq = 0;
const ev = (event: RunEventInput): RunEvent => ({ ...event, runId: 'r1', seq: ++seq, at: seq * 10 });

describe('nodeIdsOfStep', () => {
  it('lists the node candidates of a run step id, innermost first', () => {
    expect(nodeIdsOfStep('agent')).toEqual(['agent']);
    expect(nodeIdsOfStep('agent/llm#3')).toEqual(['agent']);
    expect(nodeIdsOfStep('agent/tool#1.0')).toEqual(['agent']);
    expect(nodeIdsOfStep('fanout.a/fetch')).toEqual(['fetch', 'fanout']);
    expect(nodeIdsOfStep('each[2]/summarize')).toEqual(['summarize', 'each']);
  });
});

describe('foldEvent + nodeRunsOf', () => {
  it('folds immutably, ignores replayed events and aggregates statuses per node', () => {
    seq = 0;
    const nodes = new Set(['agent', 'each', 'summarize', 'gate']);
    const events = [
      ev({ type: 'run.started', flowId: 'f', flowVersion: 1, input: {}, backend: 'inprocess' }),
      ev({ type: 'step.started', stepId: 'agent', stepType: 'llm' }),
      ev({ type: 'step.started', stepId: 'agent/llm#0', stepType: 'model-turn' }),
      ev({ type: 'step.delta', stepId: 'agent/llm#0', text: 'Hel' }),
      ev({ type: 'step.delta', stepId: 'agent/llm#0', text: 'lo' }),
    ];
    let state = initialRunState();
    const snapshots = [state];
    for (const event of events) {
      state = foldEvent(state, event);
      snapshots.push(state);
    }
    expect(snapshots[3]?.steps['agent/llm#0']?.text).toBe('');
    let runs = nodeRunsOf(state, nodes);
    expect(runs.agent).toMatchObject({ status: 'running', text: 'Hello', stepIds: ['agent', 'agent/llm#0'] });

    // A resumed stream re-sends an event already folded: no change.
    expect(foldEvent(state, events[1]!)).toBe(state);

    for (const event of [
      ev({ type: 'step.completed', stepId: 'agent/llm#0', output: {} }),
      ev({ type: 'step.completed', stepId: 'agent', output: { text: 'Hello' } }),
      ev({ type: 'step.started', stepId: 'each', stepType: 'map' }),
      ev({ type: 'step.started', stepId: 'each[0]/summarize', stepType: 'transform' }),
      ev({ type: 'step.started', stepId: 'each[1]/summarize', stepType: 'transform' }),
      ev({ type: 'step.completed', stepId: 'each[0]/summarize', output: 1 }),
      ev({ type: 'step.failed', stepId: 'each[1]/summarize', error: { name: 'Error', message: 'boom' } }),
      ev({ type: 'step.started', stepId: 'gate', stepType: 'approval' }),
      ev({ type: 'approval.requested', stepId: 'gate', prompt: 'Ship?' }),
    ])
      state = foldEvent(state, event);
    runs = nodeRunsOf(state, nodes);
    expect(runs.agent?.status).toBe('completed');
    expect(runs.summarize?.status).toBe('failed');
    expect(runs.each?.status).toBe('running');
    expect(runs.gate).toMatchObject({ status: 'waiting', waitingStepId: 'gate' });
    expect(state.status).toBe('waiting');
  });

  it("counts an agent's tool calls on its node (even beside a step called `tool`) and times ended steps", () => {
    seq = 0;
    const nodes = new Set(['agent', 'tool']);
    let state = initialRunState();
    for (const event of [
      ev({ type: 'run.started', flowId: 'f', flowVersion: 1, input: {}, backend: 'inprocess' }),
      ev({ type: 'step.started', stepId: 'agent', stepType: 'llm' }),
      ev({ type: 'step.started', stepId: 'agent/llm#1', stepType: 'model-turn', parentId: 'agent' }),
      ev({ type: 'step.completed', stepId: 'agent/llm#1', output: {} }),
      ev({
        type: 'step.started',
        stepId: 'agent/tool#1.0',
        stepType: 'tool-call',
        parentId: 'agent',
        input: { tool: 'search', args: {} },
      }),
      ev({
        type: 'step.started',
        stepId: 'agent/tool#1.1',
        stepType: 'tool-call',
        parentId: 'agent',
        input: { tool: 'add', args: {} },
      }),
    ])
      state = foldEvent(state, event);
    let runs = nodeRunsOf(state, nodes);
    expect(runs.agent).toMatchObject({ status: 'running', toolCalls: ['search', 'add'], durationMs: null });
    expect(runs.tool).toBeUndefined();
    expect(runIsActive(state.status)).toBe(true);
    state = foldEvent(state, ev({ type: 'step.completed', stepId: 'agent', output: { text: 'ok' } }));
    runs = nodeRunsOf(state, nodes);
    expect(runs.agent?.durationMs).toBe(state.steps.agent!.endedAt! - state.steps.agent!.startedAt!);
    // A step in a parallel branch, and the iterations of a map body step: first start to last end.
    for (const event of [
      ev({ type: 'step.started', stepId: 'fan.a/left', stepType: 'code' }),
      ev({ type: 'step.completed', stepId: 'fan.a/left', output: 1 }),
      ev({ type: 'step.started', stepId: 'each[0]/inner', stepType: 'code' }),
      ev({ type: 'step.started', stepId: 'each[1]/inner', stepType: 'code' }),
      ev({ type: 'step.completed', stepId: 'each[0]/inner', output: 1 }),
    ])
      state = foldEvent(state, event);
    const more = new Set(['agent', 'fan', 'left', 'each', 'inner']);
    expect(nodeRunsOf(state, more).left?.durationMs).toBe(10);
    expect(nodeRunsOf(state, more).inner?.durationMs).toBeNull();
    state = foldEvent(state, ev({ type: 'step.completed', stepId: 'each[1]/inner', output: 2 }));
    expect(nodeRunsOf(state, more).inner?.durationMs).toBe(30);
    state = foldEvent(state, ev({ type: 'run.completed', output: null }));
    expect(runIsActive(state.status)).toBe(false);
  });

  it('formats durations', () => {
    expect(formatDuration(840)).toBe('840 ms');
    expect(formatDuration(2_400)).toBe('2.4 s');
    expect(formatDuration(42_000)).toBe('42 s');
    expect(formatDuration(65_000)).toBe('1 m 05 s');
  });
});

describe('nodeRunsOf: reused checkpoints', () => {
  it('marks a node reused when its checkpoints came from the seed, partly when some ran', () => {
    seq = 0;
    const state = [
      ev({ type: 'run.started', flowId: 'f', flowVersion: 1, input: {}, backend: 'inprocess' }),
      ev({ type: 'step.started', stepId: 'research', stepType: 'llm' }),
      ev({ type: 'step.started', stepId: 'research/llm#1', stepType: 'model-turn', parentId: 'research' }),
      ev({ type: 'step.completed', stepId: 'research/llm#1', output: { text: 'a' }, reused: true }),
      ev({ type: 'step.completed', stepId: 'research', output: { text: 'a' } }),
      ev({ type: 'step.started', stepId: 'agent', stepType: 'llm' }),
      ev({ type: 'step.started', stepId: 'agent/llm#1', stepType: 'model-turn', parentId: 'agent' }),
      ev({ type: 'step.completed', stepId: 'agent/llm#1', output: { text: '' }, reused: true }),
      ev({ type: 'step.started', stepId: 'agent/llm#2', stepType: 'model-turn', parentId: 'agent' }),
      ev({ type: 'step.completed', stepId: 'agent/llm#2', output: { text: 'b' } }),
      ev({ type: 'step.completed', stepId: 'agent', output: { text: 'b' } }),
      ev({ type: 'step.started', stepId: 'count', stepType: 'code' }),
      ev({ type: 'step.completed', stepId: 'count', output: 1 }),
    ].reduce(foldEvent, initialRunState());
    const runs = nodeRunsOf(state, new Set(['research', 'agent', 'count']));
    expect(runs.research?.reused).toBe('all');
    expect(runs.agent?.reused).toBe('some');
    expect(runs.count?.reused).toBeNull();
  });
});
