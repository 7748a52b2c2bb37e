import { type Flow, flowToGraph, joinNodeId, mergeNodeId } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { foldGraph } from './fold.ts';

const flow = {
  irVersion: 1,
  id: 'f',
  name: 'F',
  steps: [
    {
      id: 'pick',
      type: 'branch',
      cases: [{ when: '=true', steps: [{ id: 'yes', type: 'transform', value: 1 }] }],
      else: [
        { id: 'each', type: 'map', items: '=[1]', steps: [{ id: 'inner', type: 'transform', value: 2 }] },
        { id: 'no', type: 'transform', value: 3 },
      ],
    },
    { id: 'both', type: 'parallel', branches: { a: [{ id: 'left', type: 'transform', value: 4 }], b: [] } },
    { id: 'after', type: 'transform', value: 5 },
  ],
} as unknown as Flow;

describe('foldGraph', () => {
  const graph = flowToGraph(flow);

  it('hides a folded branch’s arms, containers’ bodies included, and bridges it to its merge', () => {
    const { hidden, bridges } = foldGraph(graph, new Set(['pick']));
    expect([...hidden].sort()).toEqual(['each', 'inner', 'no', 'yes']);
    expect(bridges).toEqual([expect.objectContaining({ source: 'pick', target: mergeNodeId('pick'), steps: 3 })]);
    expect(bridges[0]?.sourceHandle).toBeTruthy();
  });

  it('folds a parallel up to its join and leaves the rest of the flow drawn', () => {
    const { hidden, bridges } = foldGraph(graph, new Set(['both']));
    expect([...hidden]).toEqual(['left']);
    expect(bridges.map((bridge) => bridge.target)).toEqual([joinNodeId('both')]);
  });

  it('folds a map or loop to hide what it holds, with no bridge', () => {
    const { hidden, bridges } = foldGraph(graph, new Set(['each']));
    expect([...hidden]).toEqual(['inner']);
    expect(bridges).toEqual([]);
  });

  it('ignores plain steps and unknown ids', () => {
    expect(foldGraph(graph, new Set(['after', 'gone'])).hidden.size).toBe(0);
  });
});
