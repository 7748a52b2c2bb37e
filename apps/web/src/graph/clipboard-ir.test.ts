import { type Flow, type FlowGraph, flowToGraph, graphToFlow } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { copyNodes } from './clipboard.ts';
import { clipboardFromText, clipboardToText } from './clipboard-ir.ts';
import { pasteAfter } from './paste-after.ts';

const source = flowToGraph({
  irVersion: 1,
  id: 'source',
  name: 'Source',
  tools: { vat: { description: 'VAT', parameters: { type: 'object' }, source: 'return 1;' } },
  steps: [
    { id: 'ask', type: 'llm', model: 'mock:echo', prompt: '{{ input.text }}', tools: ['vat'] },
    { id: 'shape', type: 'transform', value: '=steps.ask.output.text' },
    {
      id: 'fan',
      type: 'parallel',
      branches: { a: [{ id: 'left', type: 'transform', value: '=1' }], b: [] },
    },
  ],
} as unknown as Flow);

const target = (): FlowGraph =>
  flowToGraph({
    irVersion: 1,
    id: 'target',
    name: 'Target',
    steps: [
      { id: 'shape', type: 'transform', value: '=1' },
      { id: 'last', type: 'transform', value: '=2' },
    ],
  } as unknown as Flow);

const stepIds = (graph: FlowGraph): string[] => {
  const compiled = graphToFlow(graph);
  if (!compiled.ok) throw new Error(compiled.errors.map((error) => error.message).join('; '));
  return compiled.flow.steps.map((step) => step.id);
};

describe('the clipboard as IR JSON', () => {
  it('writes the selected steps as IR, with the flow tools they name', () => {
    const text = clipboardToText(copyNodes(source, ['ask', 'shape'])!, source.meta)!;
    const doc = JSON.parse(text);
    expect(doc.kind).toBe('weft/steps');
    expect(doc.steps.map((step: { id: string }) => step.id)).toEqual(['ask', 'shape']);
    expect(doc.steps[1]).toEqual({ id: 'shape', type: 'transform', value: '=steps.ask.output.text' });
    expect(Object.keys(doc.tools)).toEqual(['vat']);
  });

  it('keeps a fan-out whole: its arms are nested steps', () => {
    const doc = JSON.parse(clipboardToText(copyNodes(source, ['fan', 'left'])!, source.meta)!);
    expect(doc.steps).toEqual([
      { id: 'fan', type: 'parallel', branches: { a: [{ id: 'left', type: 'transform', value: '=1' }], b: [] } },
    ]);
  });

  it('reads steps back, a whole flow document or one step too, and says why other text is not', () => {
    const text = clipboardToText(copyNodes(source, ['ask', 'shape'])!, source.meta)!;
    const read = clipboardFromText(text);
    expect(read.ok && read.pasted.clipboard.nodes.map((node) => node.id)).toEqual(['ask', 'shape']);
    expect(read.ok && Object.keys(read.pasted.tools)).toEqual(['vat']);
    const one = clipboardFromText(JSON.stringify({ id: 'x', type: 'transform', value: '=1' }));
    expect(one.ok && one.pasted.clipboard.nodes.map((node) => node.id)).toEqual(['x']);
    expect(clipboardFromText('hello')).toEqual({ ok: false, error: expect.stringMatching(/not JSON/) });
    expect(clipboardFromText('{"steps": [{"id": 1}]}')).toEqual({
      ok: false,
      error: expect.stringMatching(/steps\[0\] has no string id and type/),
    });
  });
});

describe('pasting after the selection', () => {
  it('gives colliding steps fresh ids, renames their references and wires them in after the selected step', () => {
    const read = clipboardFromText(clipboardToText(copyNodes(source, ['ask', 'shape'])!, source.meta)!);
    if (!read.ok) throw new Error(read.error);
    const pasted = pasteAfter(target(), read.pasted.clipboard, 'shape', 0, read.pasted.tools);
    expect(pasted.ids).toEqual(['ask', 'shape_2']);
    expect(stepIds(pasted.graph)).toEqual(['shape', 'ask', 'shape_2', 'last']);
    const renamed = pasted.graph.nodes.find((node) => node.id === 'shape_2');
    expect(renamed?.config?.value).toBe('=steps.ask.output.text');
    // The tool the pasted llm names came along.
    expect(Object.keys(pasted.graph.meta.tools ?? {})).toEqual(['vat']);
    // Placed below the selected step; what followed it moved down to make room.
    const y = (id: string) => pasted.graph.nodes.find((node) => node.id === id)!.position.y;
    expect(y('ask')).toBeGreaterThan(y('shape'));
    expect(y('last')).toBeGreaterThan(y('shape_2'));
  });

  it('pastes after a fan-out at its join, and loose (offset) with nothing selected', () => {
    const clipboard = copyNodes(source, ['shape'])!;
    const withFan = pasteAfter(source, copyNodes(source, ['left'])!, 'fan', 0);
    expect(stepIds(withFan.graph)).toEqual(['ask', 'shape', 'fan', 'left_2']);
    const loose = pasteAfter(target(), clipboard, null, 0);
    expect(loose.graph.edges.some((edge) => edge.target === 'shape_2')).toBe(false);
  });
});
