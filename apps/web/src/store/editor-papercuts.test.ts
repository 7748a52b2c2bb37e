import { type Flow, flowToGraph, graphToFlow } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { createEditorStore } from './editor-store.ts';

const chain = () =>
  createEditorStore({
    flowId: 'chain',
    version: 1,
    graph: flowToGraph({
      irVersion: 1,
      id: 'chain',
      name: 'Chain',
      steps: [
        { id: 'one', type: 'transform', value: '=1' },
        { id: 'two', type: 'transform', value: '=2' },
        { id: 'three', type: 'transform', value: '=3' },
      ],
    } as unknown as Flow),
  });

const stepIds = (store: ReturnType<typeof chain>) => {
  const compiled = graphToFlow(store.getState().graph);
  if (!compiled.ok) throw new Error(compiled.errors.map((error) => error.message).join('; '));
  return compiled.flow.steps.map((step) => step.id);
};

describe('editor store: deleting re-joins, pasting connects', () => {
  it('re-joins the neighbours when a box selection took the step’s edges along', () => {
    const store = chain();
    const touching = store
      .getState()
      .graph.edges.filter((edge) => edge.source === 'two' || edge.target === 'two')
      .map((edge) => edge.id);
    store.getState().setSelection(['two'], touching);
    store.getState().deleteSelection();
    expect(stepIds(store)).toEqual(['one', 'three']);
  });

  it('re-joins around several adjacent steps deleted at once', () => {
    const store = chain();
    // What a box around both selects: the nodes and every edge touching them.
    const going = ['one', 'two'];
    const touching = store
      .getState()
      .graph.edges.filter((edge) => going.includes(edge.source) || going.includes(edge.target));
    store.getState().setSelection(
      going,
      touching.map((edge) => edge.id),
    );
    store.getState().deleteSelection();
    expect(stepIds(store)).toEqual(['three']);
  });

  it('pastes steps from another flow’s clipboard text after the selected step, as one undo step', () => {
    const from = chain();
    from.getState().setSelection(['one', 'two']);
    expect(from.getState().copySelection()).toBe(true);
    const text = from.getState().clipboardText();
    expect(text).not.toBeNull();

    const into = chain();
    into.getState().select('three');
    expect(into.getState().pasteText(text!)).toBeNull();
    expect(stepIds(into)).toEqual(['one', 'two', 'three', 'one_2', 'two_2']);
    expect(into.getState().selectedIds).toEqual(['one_2', 'two_2']);
    into.getState().undo();
    expect(stepIds(into)).toEqual(['one', 'two', 'three']);
    expect(into.getState().pasteText('not steps')).toMatch(/no Weft steps/);
  });
});
