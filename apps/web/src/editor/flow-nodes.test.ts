import { type Flow, flowToGraph } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { foldGraph } from '../graph/fold.ts';
import { hiddenNodeIds, toFlowEdges, toFlowNodes } from './flow-nodes.ts';

const flow = {
  irVersion: 1,
  id: 'f',
  name: 'F',
  steps: [
    { id: 'first', type: 'transform', value: 1 },
    {
      id: 'each',
      type: 'map',
      items: '=[1]',
      steps: [{ id: 'inner', type: 'loop', while: '=false', steps: [{ id: 'deep', type: 'transform', value: 2 }] }],
    },
  ],
} as unknown as Flow;

describe('toFlowNodes', () => {
  it('puts parents before children and reuses unchanged nodes', () => {
    const graph = flowToGraph(flow);
    const nodes = toFlowNodes(graph, null, []);
    const index = (id: string) => nodes.findIndex((node) => node.id === id);
    expect(index('each')).toBeLessThan(index('inner'));
    expect(index('inner')).toBeLessThan(index('deep'));
    const again = toFlowNodes(graph, null, nodes);
    expect(again.every((node, i) => node === nodes[i])).toBe(true);
    const edges = toFlowEdges(graph, []);
    expect(toFlowEdges(graph, edges).every((edge, i) => edge === edges[i])).toBe(true);
  });

  it('folds a collapsed container to its title bar and hides all it holds', () => {
    const graph = flowToGraph(flow);
    const open = toFlowNodes(graph, null, []);
    const folded = toFlowNodes(graph, null, open, new Set(['each']));
    const byId = new Map(folded.map((node) => [node.id, node]));
    expect(byId.get('each')?.data.collapsed).toBe(true);
    expect(byId.get('each')?.height).toBeLessThan(open.find((node) => node.id === 'each')!.height!);
    expect(byId.get('inner')?.hidden).toBe(true);
    expect(byId.get('deep')?.hidden).toBe(true);
    expect(byId.get('first')?.hidden).toBeUndefined();
    const edges = toFlowEdges(graph, [], [], hiddenNodeIds(graph, new Set(['each'])));
    expect(
      edges
        .filter((edge) => edge.hidden)
        .map((edge) => edge.target)
        .sort(),
    ).toEqual(['deep', 'inner']);
    // Unfolded again: drawn again.
    const reopened = toFlowNodes(graph, null, folded);
    expect(reopened.find((node) => node.id === 'deep')?.hidden).toBeUndefined();
  });

  it('folds a branch’s arms into one dashed edge to its merge node', () => {
    const graph = flowToGraph({
      irVersion: 1,
      id: 'b',
      name: 'B',
      steps: [
        {
          id: 'pick',
          type: 'branch',
          cases: [{ when: '=true', steps: [{ id: 'yes', type: 'transform', value: 1 }] }],
          else: [{ id: 'no', type: 'transform', value: 2 }],
        },
      ],
    } as unknown as Flow);
    const collapsed = new Set(['pick']);
    const nodes = toFlowNodes(graph, null, [], collapsed);
    expect(nodes.find((node) => node.id === 'pick')?.data.collapsed).toBe(true);
    expect(nodes.filter((node) => node.hidden).map((node) => node.id)).toEqual(['yes', 'no']);
    const { hidden, bridges } = foldGraph(graph, collapsed);
    const edges = toFlowEdges(graph, [], [], hidden, bridges);
    const bridge = edges.find((edge) => edge.id === 'fold:pick');
    expect(bridge).toMatchObject({ source: 'pick', label: '2 steps folded', selectable: false, deletable: false });
    expect(edges.filter((edge) => !edge.hidden && edge.source === 'pick')).toEqual([bridge]);
  });
});
