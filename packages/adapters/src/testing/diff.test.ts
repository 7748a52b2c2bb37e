import { describe, expect, it } from 'vitest';
import { outputDifference } from './diff-output.ts';
import { stepsDifference } from './diff-steps.ts';
import { schemaOfValue } from './output-schema.ts';

describe('stepsDifference', () => {
  const saved = ['fan', 'fan.a/x', 'fan.b/y', 'fan.a/x2', 'fan.b/y2', 'after'];

  it('accepts lanes that interleave otherwise (timing), not a lane in another order', () => {
    expect(stepsDifference(saved, ['fan', 'fan.b/y', 'fan.b/y2', 'fan.a/x', 'fan.a/x2', 'after'])).toBeUndefined();
    expect(stepsDifference(saved, ['fan', 'fan.a/x2', 'fan.b/y', 'fan.a/x', 'fan.b/y2', 'after'])).toBe(
      "steps[1]: expected 'fan.a/x' to start, the run started 'fan.a/x2' there (in 'fan.a')",
    );
  });

  it('names a step the run did not start, and one the case does not expect', () => {
    expect(stepsDifference(saved, saved.slice(0, -1))).toBe(
      "steps[5]: expected 'after' to start, the run did not start it",
    );
    expect(stepsDifference(saved, [...saved, 'extra'])).toBe(
      "steps: the run started 'extra', which the case does not expect",
    );
  });
});

describe('outputDifference', () => {
  it('gives the path of the first change, and how it changed', () => {
    expect(outputDifference({ a: [1, { b: 'x' }] }, { a: [1, { b: 'y' }] })).toBe(
      'output.a[1].b: expected "x", got "y"',
    );
    expect(outputDifference({ a: 1 }, { a: 1, 'new key': true })).toBe('output["new key"]: not expected, got true');
    expect(outputDifference({ a: 1, b: 2 }, { a: 1 })).toBe('output.b: expected 2, missing');
    expect(outputDifference('same', 'same')).toBeUndefined();
    expect(outputDifference(3, '3')).toBe('output: expected 3, got "3"');
    expect(outputDifference({ text: 'x'.repeat(200) }, { text: 'y' })).toMatch(
      /^output\.text: expected "x{78}…, got "y"$/,
    );
  });
});

describe('schemaOfValue', () => {
  it('describes types and keys, one item schema when items share a shape', () => {
    expect(schemaOfValue({ list: [{ n: 1 }, { n: 2 }], mixed: [1, 'a'], none: null, ok: true })).toEqual({
      type: 'object',
      properties: {
        list: { type: 'array', items: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
        mixed: { type: 'array' },
        none: { type: 'null' },
        ok: { type: 'boolean' },
      },
      required: ['list', 'mixed', 'none', 'ok'],
    });
  });
});
