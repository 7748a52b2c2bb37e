import { type Flow, flowToGraph, graphToFlow, STEP_TYPES } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { appendStep, removeNodes } from './graph-edit.ts';
import { starterFlow } from './starter.ts';
import { STEP_CATALOG } from './step-catalog.ts';

const starter = () => flowToGraph(starterFlow('demo', 'Demo') as unknown as Flow);

describe('palette edits', () => {
  it('offers every step type', () => {
    expect(STEP_CATALOG.map((info) => info.type).sort()).toEqual([...STEP_TYPES].sort());
  });

  it.each(STEP_TYPES.filter((type) => type !== 'tool' && type !== 'spawn'))(
    'appends a %s after the selected step and still compiles',
    (type) => {
      const { graph, id } = appendStep(starter(), type, 'reply');
      const result = graphToFlow(graph);
      expect(result.ok ? [] : result.errors).toEqual([]);
      expect(result.ok && result.flow.steps.map((step) => step.id)).toEqual(['reply', id]);
    },
  );

  it('appends into an empty map body, then removes the map with its body', () => {
    const withMap = appendStep(starter(), 'map', 'reply');
    const inner = appendStep(withMap.graph, 'transform', withMap.id);
    expect(inner.graph.nodes.find((node) => node.id === inner.id)?.parentId).toBe(withMap.id);
    const result = graphToFlow(inner.graph);
    expect(result.ok ? [] : result.errors).toEqual([]);
    const removed = removeNodes(inner.graph, [withMap.id]);
    expect(removed.nodes.map((node) => node.id)).not.toContain(inner.id);
  });
});
