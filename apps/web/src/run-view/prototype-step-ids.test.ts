/**
 * Every Object.prototype member name the validator accepts as a step id (`toString`, `valueOf`,
 * `hasOwnProperty`, …), through what the web draws and sends for a run: the timeline and step
 * inspector, a canvas node's live state (before the run's first snapshot its `nodes` is a plain
 * object, which answered `toString` with Object.prototype's function and broke the node), and the
 * replay dialog's form (pinning such a checkpoint found Object.prototype's member as its text).
 */
import { type Flow, flowToGraph, type RunEvent, type RunEventInput, runState, validateFlow } from '@weft/engine';
import { ReactFlowProvider } from '@xyflow/react';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { createStore } from 'zustand/vanilla';
import { buildRequest, initialForm, pretty, setMode } from '../replay/replay-form.ts';
import { EditorStoreContext } from '../store/EditorStoreProvider.tsx';
import { useNodeLive } from '../store/editor-hooks.ts';
import { createEditorStore, type EditorState } from '../store/editor-store.ts';
import { RunDock } from './RunDock.tsx';
import { StepInspector } from './StepInspector.tsx';

const flowWith = (id: string) =>
  ({
    irVersion: 1,
    id: 'proto',
    name: 'Proto',
    steps: [
      { id: 'first', type: 'code', source: 'return 1' },
      { id, type: 'http', method: 'POST', url: 'https://example.com/hook', body: { a: 1 } },
    ],
  }) as unknown;

/** The names the validator takes as step ids, checked by validating a flow with each. */
const NAMES = Object.getOwnPropertyNames(Object.prototype).filter((name) => validateFlow(flowWith(name)).ok);

function eventsOf(id: string): RunEvent[] {
  const inputs: RunEventInput[] = [
    { type: 'run.started', flowId: 'proto', flowVersion: 1, input: {}, backend: 'inprocess' },
    { type: 'step.started', stepId: 'first', stepType: 'code', input: { source: 'return 1' } },
    { type: 'step.completed', stepId: 'first', output: 1 },
    { type: 'step.started', stepId: id, stepType: 'http', input: { method: 'POST', url: 'https://example.com/hook' } },
    { type: 'step.completed', stepId: id, output: { status: 201, headers: {}, body: { ok: id } } },
    { type: 'run.completed', output: { ok: id } },
  ];
  return inputs.map((event, index) => ({ ...event, runId: 'r1', seq: index + 1, at: 1000 + index * 10 }));
}

function storeOf(id: string, events: readonly RunEvent[], select: string | null) {
  const flow = validateFlow(flowWith(id));
  if (!flow.ok) throw new Error('invalid flow');
  const store = createEditorStore({ flowId: 'proto', version: 1, graph: flowToGraph(flow.flow as Flow) });
  store.getState().startRun('r1');
  if (events.length > 0) store.getState().appendRunEvents(events);
  if (select) store.getState().selectRunStep(select);
  return createStore<EditorState>()(() => store.getState());
}

const render = (store: ReturnType<typeof storeOf>, child: ReturnType<typeof createElement>) =>
  renderToString(
    createElement(ReactFlowProvider, null, createElement(EditorStoreContext.Provider, { value: store }, child)),
  );

function NodeLiveProbe({ id }: { id: string }) {
  return createElement('output', null, JSON.stringify(useNodeLive(id)));
}

describe('step ids named like Object.prototype members, in the web app', () => {
  it('has names to test: the validator accepts toString, valueOf and hasOwnProperty', () => {
    expect(NAMES.length).toBeGreaterThan(0);
    expect(NAMES).toEqual(expect.arrayContaining(['toString', 'valueOf', 'hasOwnProperty']));
  });

  it.each(NAMES)('%s: a timeline row and the step inspector show the step', (id) => {
    const store = storeOf(id, eventsOf(id), id);
    const timeline = render(store, createElement(RunDock, { runView: true }));
    expect(timeline).toMatch(new RegExp(`data-bar-id="${id}"[^>]*data-status="completed"`));
    const inspector = render(store, createElement(StepInspector));
    expect(inspector).toContain('data-status="completed"');
    expect(inspector).toMatch(new RegExp(`&quot;ok&quot;: ?&quot;${id}&quot;`));
  });

  it.each(NAMES)('%s: the node is queued before the run reaches it, then completed', (id) => {
    const started = render(storeOf(id, [], null), createElement(NodeLiveProbe, { id }));
    expect(started).toContain('&quot;status&quot;:&quot;queued&quot;');
    const ended = render(storeOf(id, eventsOf(id), null), createElement(NodeLiveProbe, { id }));
    expect(ended).toContain('&quot;status&quot;:&quot;completed&quot;');
  });

  it.each(NAMES)('%s: the replay dialog pins the checkpoint to its recorded output and sends it', (id) => {
    const state = runState(eventsOf(id));
    const output = { status: 201, headers: {}, body: { ok: id } };
    const form = initialForm(state, 'first', false, 'inprocess');
    const pinned = setMode(form, state, id, 'pinned');
    // The text the pin starts from: the recorded output, as the form's own entry.
    expect(Object.hasOwn(pinned.pins, id) ? pinned.pins[id] : undefined).toBe(pretty(output));
    expect(buildRequest('r1', 'first', pinned)).toEqual({
      ok: true,
      request: expect.objectContaining({ pins: { [id]: output } }),
    });
    // Editing that step's output opens the dialog with it pinned already.
    const editing = initialForm(state, id, true, 'inprocess');
    expect(Object.hasOwn(editing.pins, id) ? editing.pins[id] : undefined).toBe(pretty(output));
  });
});
