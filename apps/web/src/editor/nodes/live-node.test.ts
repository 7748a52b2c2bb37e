/** The live view on a node (server-side render): queued while not reached, duration when done, tool calls. */
import { type Flow, flowToGraph, type RunEventInput } from '@weft/engine';
import { ReactFlowProvider } from '@xyflow/react';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { createStore } from 'zustand/vanilla';
import { EditorStoreContext } from '../../store/EditorStoreProvider.tsx';
import { createEditorStore, type EditorState } from '../../store/editor-store.ts';
import { toFlowNodes } from '../flow-nodes.ts';
import { StepNode } from './StepNode.tsx';

const flow = {
  irVersion: 1,
  id: 'demo',
  name: 'Demo',
  steps: [
    { id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'hi', tools: ['search'], maxSteps: 3 },
    { id: 'after', type: 'transform', value: '=1' },
  ],
} as unknown as Flow;

describe('live node', () => {
  it('shows queued, then tool calls and streamed text, then the duration', () => {
    const store = createEditorStore({ flowId: 'demo', version: 1, graph: flowToGraph(flow) });
    const nodes = toFlowNodes(store.getState().graph, null, []);
    const render = (id: string) => {
      const node = nodes.find((candidate) => candidate.id === id)!;
      const props = { ...node, selected: false, dragging: false, zIndex: 0, isConnectable: true } as never;
      // A server render reads a store's initial state: render a snapshot of the live one.
      const snapshot = createStore<EditorState>()(() => store.getState());
      return renderToString(
        createElement(
          ReactFlowProvider,
          null,
          createElement(EditorStoreContext.Provider, { value: snapshot }, createElement(StepNode, props)),
        ),
      );
    };
    let seq = 0;
    const emit = (event: RunEventInput) =>
      store.getState().applyRunEvent({ ...event, runId: 'r1', seq: ++seq, at: seq * 100 } as never);

    expect(render('agent')).toContain('data-status="idle"');
    store.getState().startRun('r1');
    emit({ type: 'run.started', flowId: 'demo', flowVersion: 1, input: {}, backend: 'inprocess' });
    expect(render('agent')).toContain('data-status="queued"');
    emit({ type: 'step.started', stepId: 'agent', stepType: 'llm' });
    emit({ type: 'step.started', stepId: 'agent/llm#1', stepType: 'model-turn', parentId: 'agent' });
    emit({ type: 'step.completed', stepId: 'agent/llm#1', output: {} });
    emit({
      type: 'step.started',
      stepId: 'agent/tool#1.0',
      stepType: 'tool-call',
      parentId: 'agent',
      input: { tool: 'search', args: {} },
    });
    emit({ type: 'step.completed', stepId: 'agent/tool#1.0', output: 1 });
    emit({ type: 'step.started', stepId: 'agent/llm#2', stepType: 'model-turn', parentId: 'agent' });
    emit({ type: 'step.delta', stepId: 'agent/llm#2', text: 'found it' });
    let html = render('agent');
    expect(html).toContain('data-status="running"');
    expect(html).toMatch(/1 tool call<\/span>.*search/);
    expect(html).toContain('found it');
    expect(html).not.toContain('node-duration');
    expect(render('after')).toContain('data-status="queued"');
    emit({ type: 'step.completed', stepId: 'agent/llm#2', output: {} });
    emit({ type: 'step.completed', stepId: 'agent', output: { text: 'found it' } });
    html = render('agent');
    expect(html).toContain('data-status="completed"');
    expect(html).toMatch(/data-testid="node-duration"[^>]*>800 ms</);
    // A run that has ended reaches nothing more: unreached steps are idle, not queued.
    emit({ type: 'run.failed', error: { name: 'Error', message: 'stop' } });
    expect(render('after')).toContain('data-status="idle"');
  });
});
