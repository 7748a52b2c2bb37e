/** The depth a sandbox result nests, counted on its JSON text without parsing it. */
import { describe, expect, it } from 'vitest';
import { jsonDepth } from './sandbox-quickjs.ts';

describe('jsonDepth', () => {
  it.each([
    ['1', 0],
    ['"[[[{{{"', 0],
    ['[]', 1],
    ['{"a":[1,{"b":[]}]}', 4],
    ['[[],[[]],[]]', 3],
    ['["\\"[[[", ["\\\\"], "]]]"]', 2],
    ['{"k\\"{":"\\\\"}', 1],
  ])('%s nests %i deep', (json, depth) => {
    expect(jsonDepth(json)).toBe(depth);
  });

  it('counts 5,000 levels without a stack', () => {
    expect(jsonDepth(`${'['.repeat(5000)}${']'.repeat(5000)}`)).toBe(5000);
  });
});
