import { describe, expect, it } from 'vitest';
import { codeSourceFromFunctionText } from './code-source.ts';

// What Node's type stripping leaves of the weft export's `function f(args: any, input: any, steps: any)`.
const STRIPPED = 'function fCode(args     , input     , steps     ) {';

describe('a type-stripped exported code function', () => {
  it.each([
    ['return args.xs.map((x     , i     ) => x * i);', 'return args.xs.map((x, i) => x * i);'],
    ['return args.xs.filter((x      ) => x);', 'return args.xs.filter(x => x);'],
    ['return args.xs.map(( x      ,y      ) => x);', 'return args.xs.map(( x ,y ) => x);'],
    ['return args.xs.map(({ a }     , ...r     ) => a);', 'return args.xs.map(({ a }, ...r) => a);'],
  ])('drops the blanked annotations: %s', (body, source) => {
    expect(codeSourceFromFunctionText(`${STRIPPED}\n  ${body}\n}`)).toBe(source);
  });

  it('leaves the spaces of any other function alone', () => {
    const body = 'return args.xs.map((x     , i     ) => x * i);';
    expect(codeSourceFromFunctionText(`function f(args, input, steps) {\n  ${body}\n}`)).toBe(body);
  });
});
