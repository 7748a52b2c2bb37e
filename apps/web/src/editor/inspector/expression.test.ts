import { type Flow, flowToGraph } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import {
  applyCompletion,
  checkExpression,
  completions,
  describePosition,
  earlierSteps,
  inExpression,
  scopeSuggestions,
} from './expression.ts';

describe('checkExpression', () => {
  it('classifies and accepts valid input', () => {
    expect(checkExpression('=input.x + 1')).toEqual({ mode: 'expression', error: null });
    expect(checkExpression('Hello {{ input.name }}!')).toEqual({ mode: 'template', error: null });
    expect(checkExpression('plain text')).toEqual({ mode: 'literal', error: null });
  });

  it('reports an expression error with its position in the field (the = counts)', () => {
    const { error } = checkExpression('=input.x +');
    expect(error?.message).toBeTruthy();
    expect(error?.position).toBeGreaterThanOrEqual(9);
    expect(checkExpression('=process').error?.message).toMatch(/process/);
  });

  it("reports a name nothing binds at the node, at its position, and accepts a map's own name", () => {
    const inMap = [{ label: 'ticket', detail: 'the current item of each' }];
    expect(checkExpression('=tikcet.id', false, inMap).error).toEqual({
      message: "unknown name 'tikcet' (a map names its item with 'as')",
      position: 1,
    });
    expect(checkExpression('Hi {{ ticket.id }} {{ input.x }}', false, inMap).error).toBeNull();
    expect(checkExpression('{{ item }}', false, inMap).error?.position).toBe(3);
  });

  it('reports template errors at the offending {{', () => {
    expect(checkExpression('Hi {{ input.name')).toMatchObject({ mode: 'template', error: { position: 3 } });
    const inner = checkExpression('Hi {{ input.( }}');
    expect(inner.error?.position).toBeGreaterThan(5);
  });

  it('requires a whole expression where the schema does', () => {
    expect(checkExpression('input.items', true).error).toMatchObject({ position: 0 });
    expect(checkExpression('', true).error).toBeNull();
    expect(checkExpression('=input.items', true).error).toBeNull();
  });

  it('describes positions by column, and by line in multi-line text', () => {
    expect(describePosition('abc', 2)).toBe('column 3');
    expect(describePosition('ab\ncd', 4)).toBe('line 2, column 2');
  });
});

const flow: Flow = {
  irVersion: 1,
  id: 'demo',
  name: 'Demo',
  input: { type: 'object', properties: { topic: { type: 'string' }, count: { type: 'integer' } } },
  steps: [
    { id: 'draft', type: 'llm', model: 'mock:echo', prompt: '{{ input.topic }}', schema: { type: 'object' } },
    {
      id: 'each',
      type: 'map',
      items: '=steps.draft.output.object.items',
      steps: [
        { id: 'first', type: 'transform', value: '=item' },
        { id: 'second', type: 'transform', value: '=steps.first.output' },
      ],
    },
    {
      id: 'again',
      type: 'loop',
      while: '=iteration < 3',
      steps: [{ id: 'tick', type: 'transform', value: '=iteration' }],
    },
    { id: 'after', type: 'transform', value: '=steps.each.output' },
  ],
};
const graph = flowToGraph(flow);
const labels = (nodeId: string | null) => scopeSuggestions(graph, nodeId).map((s) => s.label);

describe('scope', () => {
  it('lists the steps before a node along the graph, not later ones or the enclosing container', () => {
    expect(earlierSteps(graph, 'draft')).toEqual([]);
    expect(earlierSteps(graph, 'second')).toEqual(['draft', 'first']);
    expect(earlierSteps(graph, 'after')).toEqual(expect.arrayContaining(['draft', 'each', 'again']));
    expect(earlierSteps(graph, 'after')).not.toContain('after');
  });

  it('offers input properties, earlier outputs (llm fields too), item/index/iteration and helpers', () => {
    const first = labels('first');
    expect(first).toEqual(expect.arrayContaining(['input', 'input.topic', 'input.count']));
    expect(first).toEqual(
      expect.arrayContaining([
        'steps.draft.output',
        'steps.draft.output.text',
        'steps.draft.output.messages',
        'steps.draft.output.object',
      ]),
    );
    expect(first).toEqual(expect.arrayContaining(['item', 'index', 'len(']));
    expect(first).not.toContain('iteration');
    expect(first).not.toContain('steps.each.output');
    expect(labels('tick')).toContain('iteration');
    expect(labels('tick')).not.toContain('item');
    expect(labels('draft').filter((label) => label.startsWith('steps.'))).toEqual([]);
    // The flow level (output) sees every top-level step.
    expect(labels(null)).toEqual(expect.arrayContaining(['steps.after.output', 'steps.each.output']));
  });
});

describe('completions', () => {
  const all = scopeSuggestions(graph, 'after');

  it('completes the dotted word at the cursor inside an expression', () => {
    const text = '=steps.dr';
    const { start, items } = completions(text, text.length, all);
    expect(start).toBe(1);
    expect(items.map((item) => item.label)).toEqual([
      'steps.draft.output',
      'steps.draft.output.text',
      'steps.draft.output.messages',
      'steps.draft.output.object',
    ]);
    expect(applyCompletion(text, text.length, 'steps.draft.output.text')).toEqual({
      text: '=steps.draft.output.text',
      cursor: 24,
    });
  });

  it('completes inside {{ }} of a template only', () => {
    const text = 'Hi {{ inp';
    expect(completions(text, text.length, all).items.map((item) => item.label)).toContain('input.topic');
    expect(completions('Hi inp', 6, all).items).toEqual([]);
    expect(inExpression('a {{ x }} b', 11)).toBe(false);
    expect(inExpression('a {{ x }} b', 6)).toBe(true);
  });

  it('keeps the rest of the text when completing mid-string', () => {
    expect(applyCompletion('=len(ste) + 1', 8, 'steps.each.output')).toEqual({
      text: '=len(steps.each.output) + 1',
      cursor: 22,
    });
  });
});
