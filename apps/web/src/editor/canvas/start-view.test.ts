import { type FlowGraph, flowToGraph } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { drawFlow } from '../../graph/layout.ts';
import { estimatedFitView } from './start-view.ts';

const chain = (steps: number): FlowGraph =>
  drawFlow({
    irVersion: 1,
    id: 'chain',
    name: 'chain',
    steps: Array.from({ length: steps }, (_, i) => ({ id: `s${i}`, type: 'transform' as const, value: '=input' })),
  });

describe('estimatedFitView', () => {
  it('keeps a small flow at the largest zoom allowed', () => {
    expect(estimatedFitView(chain(2), 1440, 900, 0.01, 1).zoom).toBe(1);
  });

  it('zooms out as far as a long flow needs, within the zoom range', () => {
    const view = estimatedFitView(chain(2_000), 1440, 900, 0.01, 1);
    expect(view.zoom).toBeLessThan(0.3);
    expect(view.zoom).toBeGreaterThan(0.01);
    expect(estimatedFitView(chain(2_000), 1440, 900, 0.5, 1).zoom).toBe(0.5);
  });

  it('fits the whole of the top-level boxes into the pane', () => {
    const graph = chain(50);
    const { x, y, zoom } = estimatedFitView(graph, 1000, 800, 0.01, 1);
    for (const node of graph.nodes) {
      if (node.parentId) continue;
      expect(node.position.x * zoom + x).toBeGreaterThanOrEqual(0);
      expect(node.position.y * zoom + y).toBeGreaterThanOrEqual(0);
      expect(node.position.x * zoom + x).toBeLessThanOrEqual(1000);
      expect(node.position.y * zoom + y).toBeLessThanOrEqual(800);
    }
  });

  it('starts at 1× when there is nothing to fit', () => {
    const empty = { ...flowToGraph({ irVersion: 1, id: 'e', name: 'e', steps: [] }), nodes: [] };
    expect(estimatedFitView(empty, 1440, 900, 0.01, 1)).toEqual({ x: 0, y: 0, zoom: 1 });
  });
});
