import { describe, expect, it } from 'vitest';
import { formatPath, jsonSides, modelText, signed, textSides, usd } from './diff-sides.ts';

describe('textSides', () => {
  it('marks the words each side lacks', () => {
    const sides = textSides('In a dry tone', 'In a cheerful tone');
    expect(sides.same).toBe(false);
    expect(sides.left.filter((s) => s.kind === 'removed').map((s) => s.text)).toEqual(['dry']);
    expect(sides.right.filter((s) => s.kind === 'added').map((s) => s.text)).toEqual(['cheerful']);
    expect(sides.left.map((s) => s.text).join('')).toBe('In a dry tone');
    expect(sides.right.map((s) => s.text).join('')).toBe('In a cheerful tone');
  });

  it('finds nothing between equal texts', () => {
    expect(textSides('same', 'same').same).toBe(true);
  });
});

describe('jsonSides', () => {
  it('diffs pretty JSON line by line, key order aside', () => {
    expect(jsonSides({ a: 1, b: 2 }, { b: 2, a: 1 }).same).toBe(true);
    const sides = jsonSides({ words: 7, text: 'x' }, { words: 8, text: 'x' });
    expect(sides.left.find((s) => s.kind === 'removed')?.text).toContain('"words": 7');
    expect(sides.right.find((s) => s.kind === 'added')?.text).toContain('"words": 8');
  });
});

describe('helpers', () => {
  it('reads model text, formats paths and signs deltas', () => {
    expect(modelText({ text: 'hi', usage: {} })).toBe('hi');
    expect(modelText([1])).toBeNull();
    expect(formatPath(['output', 'list', 1, 'a'])).toBe('output.list[1].a');
    expect([signed(3), signed(-2), signed(0)]).toEqual(['+3', '−2', '0']);
    expect([usd(0), usd(0.004213), usd(1.254), usd(-0.5)]).toEqual(['$0', '$0.0042', '$1.25', '−$0.50']);
  });
});
