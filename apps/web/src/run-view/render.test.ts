/**
 * The run view rendered (server-side, from a store holding a run): timeline rows as they were at
 * the scrubbed event, the scrubber's position, and the step inspector with the conversation.
 */
import { type Flow, flowToGraph, type Json, type RunEvent, type RunEventInput } from '@weft/engine';
import { ReactFlowProvider } from '@xyflow/react';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { createStore } from 'zustand/vanilla';
import { EditorStoreContext } from '../store/EditorStoreProvider.tsx';
import { createEditorStore, type EditorState } from '../store/editor-store.ts';
import { RunDock } from './RunDock.tsx';
import { StepInspector } from './StepInspector.tsx';

const flow = {
  irVersion: 1,
  id: 'demo',
  name: 'Demo',
  steps: [{ id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'Otters?', tools: ['search'], maxSteps: 3 }],
} as unknown as Flow;

const usage = { inputTokens: 12, outputTokens: 4, totalTokens: 16 };
const turn = (text: string, calls: { id: string; tool: string; args: Json }[]) =>
  ({
    text,
    toolCalls: calls,
    responseMessages: [{ role: 'assistant', content: [{ type: 'text', text }] }],
    usage: { inputTokens: 12, outputTokens: 4, totalTokens: 16 },
    finishReason: calls.length > 0 ? 'tool-calls' : 'stop',
  }) as unknown as Json;

const inputs: RunEventInput[] = [
  { type: 'run.started', flowId: 'demo', flowVersion: 1, input: null, backend: 'inprocess' },
  {
    type: 'step.started',
    stepId: 'agent',
    stepType: 'llm',
    input: { model: 'mock:echo', messages: [{ role: 'user', content: 'Otters?' }], tools: ['search'] },
  },
  { type: 'step.started', stepId: 'agent/llm#1', stepType: 'model-turn', parentId: 'agent' },
  {
    type: 'step.completed',
    stepId: 'agent/llm#1',
    output: turn('Searching.', [
      { id: 'c0', tool: 'search', args: { q: 'a' } },
      { id: 'c1', tool: 'search', args: { q: 'b' } },
    ]),
    usage,
  },
  {
    type: 'step.started',
    stepId: 'agent/tool#1.0',
    stepType: 'tool-call',
    parentId: 'agent',
    input: { tool: 'search', args: { q: 'a' } },
  },
  {
    type: 'step.started',
    stepId: 'agent/tool#1.1',
    stepType: 'tool-call',
    parentId: 'agent',
    input: { tool: 'search', args: { q: 'b' } },
  },
  { type: 'step.completed', stepId: 'agent/tool#1.0', output: 'A' },
  { type: 'step.completed', stepId: 'agent/tool#1.1', output: 'B' },
  { type: 'step.started', stepId: 'agent/llm#2', stepType: 'model-turn', parentId: 'agent' },
  { type: 'step.delta', stepId: 'agent/llm#2', text: 'Otters ' },
  { type: 'step.delta', stepId: 'agent/llm#2', text: 'swim.' },
  { type: 'step.completed', stepId: 'agent/llm#2', output: turn('Otters swim.', []), usage },
  { type: 'step.completed', stepId: 'agent', output: { text: 'Otters swim.' } },
  { type: 'run.completed', output: 'Otters swim.' },
];
const events: RunEvent[] = inputs.map((event, index) => ({
  ...event,
  runId: 'r1',
  seq: index + 1,
  at: 1000 + index * 10,
}));

function storeAt(cursor: number | null, step: string | null) {
  const store = createEditorStore({ flowId: 'demo', version: 1, graph: flowToGraph(flow) });
  store.getState().startRun('r1');
  store.getState().appendRunEvents(events);
  store.getState().setCursor(cursor);
  if (step) store.getState().selectRunStep(step);
  // A server render reads a store's initial state: render a snapshot of the live one.
  return createStore<EditorState>()(() => store.getState());
}

const render = (store: ReturnType<typeof storeAt>, child: ReturnType<typeof createElement>) =>
  renderToString(
    createElement(ReactFlowProvider, null, createElement(EditorStoreContext.Provider, { value: store }, child)),
  );

/** `data-bar-id="x" … data-status="y"` pairs of the rendered rows. */
function rowStatuses(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of html.matchAll(/data-bar-id="([^"]+)"[^>]*?data-status="([^"]+)"/g)) out[match[1]!] = match[2]!;
  return out;
}

describe('the run view, rendered', () => {
  it('draws each row as it was when the second tool call had been requested but not answered', () => {
    // Event index 5: tool#1.1 started; neither call answered yet.
    const html = render(storeAt(5, 'agent/tool#1.1'), createElement(RunDock, { runView: true }));
    expect(rowStatuses(html)).toEqual({
      '@run': 'running',
      agent: 'running',
      'agent/llm#1': 'completed',
      'agent/tool#1.0': 'running',
      'agent/tool#1.1': 'running',
      'agent/llm#2': 'pending',
    });
    expect(html).toContain('6 / 14');
    expect(html).toMatch(/aria-selected="true"[^>]*data-bar-id="agent\/tool#1.1"/);
  });

  it('shows the conversation so far in the step inspector, the unanswered call without a result', () => {
    const html = render(storeAt(5, 'agent/tool#1.1'), createElement(StepInspector));
    expect(html).toContain('data-testid="transcript-agent/tool#1.1" data-status="running"');
    expect(html).toContain('no result yet');
    expect(html).not.toContain('Otters swim.');
  });

  it('streams a turn’s text as its deltas arrived, and rebuilds what it sent', () => {
    const html = render(storeAt(9, 'agent/llm#2'), createElement(StepInspector));
    expect(html).toContain('Otters ');
    expect(html).not.toContain('Otters swim.');
    expect(html).toContain('data-testid="streaming"');
    expect(html).toContain('Messages sent');
    expect(html).toContain('tool-result');
  });

  it('shows tokens and the whole run at its end', () => {
    const store = storeAt(null, 'agent');
    expect(rowStatuses(render(store, createElement(RunDock, { runView: true })))['agent/llm#2']).toBe('completed');
    expect(render(store, createElement(StepInspector))).toContain('24<!-- --> in · <!-- -->8<!-- --> out');
  });
});
