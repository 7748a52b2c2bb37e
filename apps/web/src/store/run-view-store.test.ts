/** The run view in the store: the scrubbed state, a permalink restored before its events arrive, selection both ways. */
import { type Flow, flowToGraph, type RunEvent, type RunEventInput, runState } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { createEditorStore } from './editor-store.ts';

const flow = {
  irVersion: 1,
  id: 'demo',
  name: 'Demo',
  steps: [
    { id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'hi', tools: ['search'], maxSteps: 3 },
    {
      id: 'each',
      type: 'map',
      items: '=[1, 2]',
      steps: [{ id: 'pick', type: 'transform', value: '=item' }],
    },
  ],
} as unknown as Flow;

const inputs: RunEventInput[] = [
  { type: 'run.started', flowId: 'demo', flowVersion: 1, input: null, backend: 'inprocess' },
  { type: 'step.started', stepId: 'agent', stepType: 'llm' },
  { type: 'step.started', stepId: 'agent/llm#1', stepType: 'model-turn', parentId: 'agent' },
  { type: 'step.completed', stepId: 'agent/llm#1', output: { text: '' } },
  { type: 'step.completed', stepId: 'agent', output: { text: 'hi' } },
  { type: 'step.started', stepId: 'each', stepType: 'map' },
  { type: 'step.started', stepId: 'each[0]/pick', stepType: 'transform', parentId: 'each' },
  { type: 'step.completed', stepId: 'each[0]/pick', output: 1 },
  { type: 'step.started', stepId: 'each[1]/pick', stepType: 'transform', parentId: 'each' },
  { type: 'step.completed', stepId: 'each[1]/pick', output: 2 },
  { type: 'step.completed', stepId: 'each', output: [1, 2] },
  { type: 'run.completed', output: [1, 2] },
];
// Seqs with gaps, as a store leaves them (journal rows take numbers too).
const events: RunEvent[] = inputs.map((event, index) => ({
  ...event,
  runId: 'r1',
  seq: (index + 1) * 2,
  at: 1000 + index,
}));

const make = () => createEditorStore({ flowId: 'demo', version: 1, graph: flowToGraph(flow) });

describe('the run view in the store', () => {
  it('draws the state after the scrubbed event, and keeps the latest for the run panel', () => {
    const store = make();
    store.getState().startRun('r1');
    store.getState().appendRunEvents(events);
    expect(store.getState().run).toMatchObject({ cursor: null, length: events.length });
    expect(store.getState().run!.view).toBe(store.getState().run!.state);
    store.getState().setCursor(2);
    const run = store.getState().run!;
    expect(run.view).toEqual(runState(events.slice(0, 3)));
    expect(run.state.status).toBe('completed');
    expect(run.nodes.agent?.status).toBe('running');
    expect(run.nodes.each).toBeUndefined();
    // The last event is the end: following again.
    store.getState().setCursor(events.length - 1);
    expect(store.getState().run!.cursor).toBeNull();
  });

  it('restores a permalink’s event and step before the events have arrived', () => {
    const store = make();
    store.getState().startRun('r1');
    store.getState().selectRunStep('each[1]/pick');
    store.getState().scrubToSeq(15); // between seq 14 and 16: the event at or before it
    expect(store.getState().selectedId).toBe('pick');
    store.getState().appendRunEvents(events.slice(0, 4));
    expect(store.getState().run!.cursor).toBeNull();
    store.getState().appendRunEvents(events.slice(4));
    expect(store.getState().run!.cursor).toBe(6);
    expect(store.getState().run!.view.seq).toBe(14);
    expect(store.getState().selectedStepId).toBe('each[1]/pick');
  });

  it('keeps following new events at the end, and stays where the user scrubbed', () => {
    const store = make();
    store.getState().startRun('r1');
    store.getState().appendRunEvents(events.slice(0, 5));
    store.getState().setCursor(1);
    const before = store.getState().run!.view;
    store.getState().appendRunEvents(events.slice(5));
    expect(store.getState().run!.view).toBe(before);
    expect(store.getState().run!.state.status).toBe('completed');
  });

  it('selects the node of a selected run step, and a run step of a selected node', () => {
    const store = make();
    store.getState().startRun('r1');
    store.getState().appendRunEvents(events);
    store.getState().selectRunStep('agent/llm#1');
    expect(store.getState()).toMatchObject({ selectedId: 'agent', selectedIds: ['agent'] });
    // Selecting the node it is drawn on keeps the turn; another node takes that node's step.
    store.getState().setSelection(['agent', 'pick']);
    expect(store.getState().selectedStepId).toBe('agent/llm#1');
    store.getState().select('pick');
    expect(store.getState().selectedStepId).toBe('each[0]/pick');
    store.getState().select('agent');
    expect(store.getState().selectedStepId).toBe('agent');
    store.getState().select(null);
    expect(store.getState().selectedStepId).toBeNull();
    // A map item's group selects its map.
    store.getState().selectRunStep('each[1]');
    expect(store.getState().selectedId).toBe('each');
  });

  it('ignores events of another run and a stream resumed over what it holds', () => {
    const store = make();
    store.getState().startRun('r1');
    store.getState().appendRunEvents(events.slice(0, 6));
    store.getState().appendRunEvents([...events.slice(3, 8), { ...events[9]!, runId: 'other' }]);
    expect(store.getState().run!.length).toBe(8);
    expect(
      store
        .getState()
        .runTape()!
        .events.map((event) => event.seq),
    ).toEqual([2, 4, 6, 8, 10, 12, 14, 16]);
  });
});
