import { type Flow, flowToGraph, type GraphNode } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIZE } from './node-sizes.ts';
import { WRAP_FROM_NODES, wrapColumns } from './wrap-columns.ts';

const chain = (steps: number, extra: Record<string, unknown>[] = []): Flow =>
  ({
    irVersion: 1,
    id: 'long',
    name: 'Long',
    steps: [
      ...Array.from({ length: steps }, (_, i) => ({ id: `s${i}`, type: 'transform', value: '=input' })),
      ...extra,
    ],
  }) as unknown as Flow;

const box = (node: GraphNode) => {
  const size = node.size ?? DEFAULT_SIZE[node.kind];
  return {
    left: node.position.x,
    top: node.position.y,
    right: node.position.x + size.width,
    bottom: node.position.y + size.height,
  };
};

describe('wrapColumns', () => {
  it('leaves a short flow in one column', () => {
    const graph = flowToGraph(chain(WRAP_FROM_NODES - 5));
    expect(wrapColumns(graph)).toBe(graph);
  });

  it('wraps a long chain into columns roughly the shape of a screen, in reading order', () => {
    const graph = wrapColumns(flowToGraph(chain(2000)));
    const top = graph.nodes.filter((node) => node.parentId === undefined);
    const xs = top.map((node) => box(node).right);
    const ys = top.map((node) => box(node).bottom);
    const width = Math.max(...xs);
    const height = Math.max(...ys);
    expect(width / height).toBeGreaterThan(0.8);
    expect(width / height).toBeLessThan(3);
    // Down each column, then on to the next one's top: x never goes back.
    const position = (id: string) => graph.nodes.find((node) => node.id === id)!.position;
    for (let i = 1; i < 2000; i++) {
      const [a, b] = [position(`s${i - 1}`), position(`s${i}`)];
      expect(b.x > a.x || (b.x === a.x && b.y > a.y), `s${i - 1} → s${i}`).toBe(true);
    }
  });

  it('never cuts through a branch or a container, and nothing overlaps', () => {
    const branch = {
      id: 'route',
      type: 'branch',
      cases: [{ when: '=true', steps: [{ id: 'yes', type: 'transform', value: 1 }] }],
      else: [{ id: 'no', type: 'transform', value: 2 }],
    };
    const map = { id: 'each', type: 'map', items: '=[1]', steps: [{ id: 'inner', type: 'transform', value: 3 }] };
    const flow = chain(300, [
      branch,
      map,
      ...Array.from({ length: 100 }, (_, i) => ({ id: `t${i}`, type: 'transform', value: 1 })),
    ]);
    const before = flowToGraph(flow);
    const graph = wrapColumns(before);
    const at = (id: string) => graph.nodes.find((node) => node.id === id)!.position;
    // The branch, its arms and its merge move together: same offsets as before.
    const was = (id: string) => before.nodes.find((node) => node.id === id)!.position;
    const shift = (id: string) => ({ dx: at(id).x - was(id).x, dy: at(id).y - was(id).y });
    for (const id of ['yes', 'no', 'route/merge']) expect(shift(id)).toEqual(shift('route'));
    // A child keeps its position relative to its container.
    expect(at('inner')).toEqual(was('inner'));
    const top = graph.nodes.filter((node) => node.parentId === undefined).map(box);
    for (const [i, a] of top.entries())
      for (const b of top.slice(i + 1))
        expect(a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top).toBe(true);
  });
});
