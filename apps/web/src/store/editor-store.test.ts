import { type Flow, flowToGraph, graphToFlow } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { starterFlow } from '../graph/starter.ts';
import { createEditorStore } from './editor-store.ts';

const make = () =>
  createEditorStore({ flowId: 'demo', version: 1, graph: flowToGraph(starterFlow('demo', 'Demo') as unknown as Flow) });

describe('editor store: undo/redo, selection, clipboard', () => {
  it('undoes and redoes every edit; undoing to the saved graph is clean', () => {
    const store = make();
    const original = store.getState().graph;
    store.getState().appendStep('transform');
    store.getState().renameStep('transform', 'shape');
    expect(store.getState().graph.nodes.some((node) => node.id === 'shape')).toBe(true);
    store.getState().undo();
    expect(store.getState().graph.nodes.some((node) => node.id === 'transform')).toBe(true);
    store.getState().undo();
    expect(store.getState().graph).toBe(original);
    expect(store.getState().dirty).toBe(false);
    store.getState().redo();
    store.getState().redo();
    expect(store.getState().graph.nodes.some((node) => node.id === 'shape')).toBe(true);
    expect(store.getState().dirty).toBe(true);
  });

  it('coalesces a burst of config edits of one step into one undo step', () => {
    const store = make();
    store.getState().setConfig('reply', { model: 'mock:echo', prompt: 'a' });
    store.getState().setConfig('reply', { model: 'mock:echo', prompt: 'ab' });
    expect(store.getState().history.past).toHaveLength(1);
    store.getState().undo();
    expect(store.getState().dirty).toBe(false);
  });

  it('copies, pastes and deletes a multi-selection as single edits', () => {
    const store = make();
    store.getState().appendStep('parallel');
    store.getState().setSelection(['reply', 'parallel']);
    expect(store.getState().copySelection()).toBe(true);
    store.getState().paste();
    const pasted = store.getState().selectedIds;
    expect([...pasted].sort()).toEqual(['parallel_2', 'parallel_2/join', 'reply_2']);
    store.getState().deleteSelection();
    expect(store.getState().graph.nodes.some((node) => node.id === 'reply_2')).toBe(false);
    const result = graphToFlow(store.getState().graph);
    expect(result.ok).toBe(true);
    store.getState().undo();
    expect(store.getState().graph.nodes.some((node) => node.id === 'reply_2')).toBe(true);
  });

  it('auto-layout is one undoable edit', async () => {
    const store = make();
    const before = store.getState().graph;
    await store.getState().autoLayout();
    expect(store.getState().graph).not.toBe(before);
    store.getState().undo();
    expect(store.getState().graph).toBe(before);
  });

  it('arm edits report errors instead of throwing', () => {
    const store = make();
    store.getState().appendStep('branch');
    expect(store.getState().removeBranchCase('branch', 0)).toMatch(/at least one case/);
    expect(store.getState().addBranchCase('branch')).toBeNull();
    expect(store.getState().addParallelBranch('branch')).toMatch(/not a parallel/);
  });

  it('palette click with one selected edge inserts on it; one undo step; then add-after-node again', () => {
    const store = make();
    store.getState().appendStep('parallel');
    const branchA = store
      .getState()
      .graph.edges.find((edge) => edge.source === 'parallel' && edge.sourceHandle === 'a');
    store.getState().setSelection([], [branchA?.id ?? '']);
    store.getState().appendStep('code');
    expect(store.getState().selectedId).toBe('code');
    expect(store.getState().selectedEdgeIds).toEqual([]);
    const result = graphToFlow(store.getState().graph);
    expect(result.ok && result.flow.steps[1]).toMatchObject({ branches: { a: [{ id: 'code' }] } });
    // The new step is selected: the next click adds after it, inside the same branch.
    store.getState().appendStep('transform');
    const next = graphToFlow(store.getState().graph);
    expect(next.ok && next.flow.steps[1]).toMatchObject({ branches: { a: [{ id: 'code' }, { id: 'transform' }] } });
    store.getState().undo();
    store.getState().undo();
    expect(store.getState().graph.nodes.some((node) => node.id === 'code')).toBe(false);
  });
});
