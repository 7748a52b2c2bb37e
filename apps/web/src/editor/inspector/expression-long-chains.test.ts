/**
 * The editor's expression checks on long flat chains (`1+1+…`, `a && b && …`, `'a' + 'b' + …`):
 * accepted as the engine accepts them, not "nested too deeply", and without a stack overflow,
 * in the inspector's field check and in the live compile check of the whole graph.
 */
import { type Flow, flowToGraph, graphToFlow } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { checkExpression } from './expression.ts';

const sum = `=1${'+1'.repeat(4999)}`;
const both = `=input.ok${' && input.ok'.repeat(800)}`;
const joined = `{{ 'a'${" + 'b'".repeat(1500)} }}`;

describe('long flat chains in the editor', () => {
  it('the field check accepts them, and still names a name nothing binds', () => {
    expect(checkExpression(sum, true)).toEqual({ mode: 'expression', error: null });
    expect(checkExpression(both, true, [])).toEqual({ mode: 'expression', error: null });
    expect(checkExpression(joined)).toEqual({ mode: 'template', error: null });
    const misspelt = `=input.ok${' && input.ok'.repeat(800)} && tikcet`;
    expect(checkExpression(misspelt, true, []).error).toEqual({
      message: "unknown name 'tikcet' (a map names its item with 'as')",
      position: misspelt.indexOf('tikcet'),
    });
  });

  it('a nested expression keeps the depth limit', () => {
    const nested = `=${'(1 + '.repeat(150)}1${')'.repeat(150)}`;
    expect(checkExpression(nested, true).error?.message).toMatch(/nested too deeply \(limit 100\)/);
  });

  it('the live compile check of the graph holding them reports no problem', () => {
    const flow = {
      irVersion: 1,
      id: 'chains',
      name: 'chains',
      input: { type: 'object', properties: { ok: { type: 'boolean' } } },
      steps: [
        { id: 'total', type: 'transform', value: sum },
        { id: 'all', type: 'transform', value: both },
        { id: 'text', type: 'transform', value: joined },
      ],
      output: '=steps.total.output',
    } as unknown as Flow;
    const result = graphToFlow(flowToGraph(flow));
    expect(result.ok ? [] : result.errors).toEqual([]);
  });
});
