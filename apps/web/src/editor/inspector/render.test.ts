/** Smoke: the inspector renders a form for every step type and the flow settings (server-side render). */
import { type Flow, flowToGraph, STEP_TYPES } from '@weft/engine';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { STEP_CATALOG } from '../../graph/step-catalog.ts';
import { EditorStoreProvider } from '../../store/EditorStoreProvider.tsx';
import { Inspector } from '../Inspector.tsx';
import { FlowInspector } from './FlowInspector.tsx';
import { StepForm } from './StepForm.tsx';

const flow: Flow = {
  irVersion: 1,
  id: 'demo',
  name: 'Demo',
  input: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
  steps: [{ id: 'a', type: 'transform', value: '=input.topic' }],
  tools: { shout: { description: 'Shouts', parameters: { type: 'object' }, source: 'return args;' } },
};

const render = (child: ReturnType<typeof createElement>) =>
  renderToString(
    createElement(EditorStoreProvider, { init: { flowId: 'demo', version: 1, graph: flowToGraph(flow) } }, child),
  );

describe('inspector rendering', () => {
  it('renders a labelled form for every step type', () => {
    for (const type of STEP_TYPES) {
      const config = STEP_CATALOG.find((info) => info.type === type)?.defaults ?? {};
      const html = render(createElement(StepForm, { nodeId: 'a', stepType: type, config }));
      expect(html, type).toContain(`aria-label="Settings of a"`);
      expect(html, type).toContain('Advanced');
    }
  });

  it('renders the flow settings when nothing is selected', () => {
    const html = render(createElement(Inspector));
    expect(html).toContain('aria-label="Flow name"');
    expect(html).toContain('Input schema');
    expect(html).toContain('value="topic"');
    expect(html).toContain('Tool shout source');
    expect(render(createElement(FlowInspector))).toContain('aria-label="Output kind"');
  });
});
