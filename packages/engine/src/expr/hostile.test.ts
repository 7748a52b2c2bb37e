import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ExpressionError } from '../errors.ts';
import type { Json } from '../json.ts';
import { compileExpression, compileTemplate, type ExprScope } from './index.ts';

/** A canary every hostile expression would have to touch to escape: none may. */
const canary = { touched: false };
const globals = globalThis as unknown as Record<string, unknown>;
globals.__weftCanary = canary;
afterEach(() => {
  expect(canary.touched).toBe(false);
  expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
});

const scope: ExprScope = {
  input: { text: 'x', list: [1, 2], obj: { a: 1 } },
  steps: Object.assign(Object.create(null) as Record<string, { output: Json }>, { a: { output: { b: 1 } } }),
};

/** Compiles and evaluates; returns the error (which must be an ExpressionError). */
function attempt(source: string): ExpressionError {
  let result: unknown;
  try {
    result = compileExpression(source).evaluate(scope);
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    return error as ExpressionError;
  }
  throw new Error(`'${source.slice(0, 80)}' was accepted and gave ${String(result)}`);
}

describe('hostile input never executes anything', () => {
  it.each<[string, string, RegExp]>([
    ['constructor chain', "constructor.constructor('return process')()", /unknown name 'constructor'/],
    ['steps.__proto__', 'steps.__proto__', /property '__proto__' is not allowed/],
    ["input['__proto__']", "input['__proto__']", /property '__proto__' is not allowed/],
    ['computed constructor', "input['constr' + 'uctor']", /property 'constructor' is not allowed/],
    ['computed __proto__ via helper', "input[concat('__pro', 'to__')]", /property '__proto__' is not allowed/],
    ["'a'.constructor", "'a'.constructor", /property 'constructor' is not allowed/],
    ['[].constructor', '[].constructor', /property 'constructor' is not allowed/],
    ['prototype', 'input.obj.prototype', /property 'prototype' is not allowed/],
    ['__defineGetter__', "input.__defineGetter__('x', 1)", /'__defineGetter__' is not an allowed method/],
    ['__lookupGetter__ computed', "input['__lookupGetter__']", /property '__lookupGetter__' is not allowed/],
    ['(1).toString.call', '(1).toString.call', /cannot read 'call' of undefined/],
    ['toString call', '(1).toString()', /'toString' is not an allowed method/],
    ['valueOf call', "'a'.valueOf()", /'valueOf' is not an allowed method/],
    ['process', 'process', /unknown name 'process'; expressions can read input, steps, item, index, iteration, args/],
    ['process.env', 'process.env.SECRET', /unknown name 'process'/],
    ['globalThis', 'globalThis', /unknown name 'globalThis'/],
    ['canary', '__weftCanary', /unknown name '__weftCanary'/],
    ['this', 'this', /'this' is not allowed/],
    ['Function', "Function('x')", /'Function' is not an allowed function/],
    ['eval', "eval ('1')", /'eval' is not an allowed function/],
    ['require', "require('fs')", /'require' is not an allowed function/],
    ['assignment', 'x = 1', /assignment is not allowed/],
    ['a global', 'globalThis', /unknown name 'globalThis'/],
    ['process', 'process.exit(1)', /unknown name 'process'/],
    ['a name no map binds', 'x', /unknown name 'x'; expressions can read input, steps here/],
    ['assignment to a root', 'input = 1', /assignment is not allowed/],
    ['member assignment', "input.obj.a = 'p'", /assignment is not allowed/],
    ['compound assignment', 'input.obj.a += 1', /assignment is not allowed/],
    ['increment', 'input.obj.a++', /assignment is not allowed/],
    ['arrow', 'a => a', /arrow functions are not allowed/],
    ['arrow with parens', '() => 1', /unexpected '\)'/],
    ['arrow after a root', 'input => 1', /arrow functions are not allowed/],
    ['new', 'new Date()', /'new' is not allowed/],
    ['import', "import('fs')", /'import' is not allowed/],
    ['function', 'function() {}', /'function' is not allowed/],
    ['delete', 'delete input.obj', /'delete' is not allowed/],
    ['void', 'void 0', /'void' is not allowed/],
    ['in', "'a' in input.obj", /'in' is not allowed/],
    ['instanceof', 'input instanceof input', /'instanceof' is not allowed/],
    ['comma', '(1, 2)', /unexpected ','/],
    ['two statements', 'input; input', /unexpected ';'/],
    ['regex', '/x/.test(input.text)', /regular expressions are not supported/],
    ['template literal', '`$' + '{input}`', /template literals are not supported/],
    ['spread', '[...input.list]', /spread/],
    ['bitwise', '1 | 2', /operator '\|' is not supported/],
    ['optional call', 'input.text.trim?.()', /optional calls/],
    ['call of a value', 'input.list[0]()', /only helper functions and string\/array methods can be called/],
    ['call of a root', 'input()', /'input' is not a function/],
    ['computed method', "input.text['trim']()", /only helper functions/],
    ['method on a non-string', "input.obj.includes('a')", /'includes' is not a method of object/],
    ['string method on an array', 'input.list.toUpperCase()', /'toUpperCase' is not a method of array/],
    ['computed object key', '{ [input.text]: 1 }', /computed keys are not supported/],
    ['__proto__ object key', '{ __proto__: input.obj }', /property '__proto__' is not allowed/],
    ['quoted __proto__ key', "{ '__proto__': 1 }", /property '__proto__' is not allowed/],
    ['repeat bomb', "'x'.repeat(1e9)", /would build 1000000000 characters/],
    ['range bomb', 'range(1e9)', /at most 10000 numbers/],
    ['padStart bomb', "'x'.padStart(1e9)", /cannot pad to 1000000000/],
    ['replace bomb', "replace('x'.repeat(10000), '', 'y'.repeat(10000))", /too long/],
    ['split bomb', "split('x'.repeat(10000).padEnd(999999), '')", /too long/],
    [
      'concat bomb',
      'concat(range(10000), range(10000), range(10000), range(10000), range(10000), range(10000), range(10000), range(10000), range(10000), range(10000), range(10000))',
      /too long/,
    ],
    ['join bomb', "join(range(10000), 'y'.repeat(1000))", /too long/],
  ])('%s', (_name, source, message) => {
    expect(attempt(source).message).toMatch(message);
  });

  it('rejects an expression over 10,000 characters', () => {
    const long = `${'input.text + '.repeat(1600)}'x'`;
    expect(long.length).toBeGreaterThan(20_000);
    expect(attempt(long).message).toMatch(/expression is too long \(\d+ characters; the limit is 10000\)/);
  });

  it('rejects 500 nested parentheses', () => {
    expect(attempt(`${'('.repeat(500)}1${')'.repeat(500)}`).message).toMatch(/nested too deeply/);
  });

  it('rejects deep unary, ternary, array, ** and member nesting', () => {
    expect(attempt(`${'!'.repeat(500)}true`).message).toMatch(/nested too deeply/);
    expect(attempt(`${'true ? 1 : '.repeat(200)}0`).message).toMatch(/nested too deeply/);
    expect(attempt(`${'['.repeat(200)}${']'.repeat(200)}`).message).toMatch(/nested too deeply/);
    expect(attempt(`2${' ** 1'.repeat(500)}`).message).toMatch(/nested too deeply/);
    expect(attempt(`input${'.a'.repeat(500)}`).message).toMatch(/nested too deeply/);
    expect(attempt(`${'(1 + '.repeat(150)}1${')'.repeat(150)}`).message).toMatch(/nested too deeply \(limit 100\)/);
  });

  it('accepts nesting within the limit', () => {
    expect(compileExpression(`${'('.repeat(90)}1${')'.repeat(90)}`).evaluate(scope)).toBe(1);
    expect(compileExpression(`${'(1 + '.repeat(90)}1${')'.repeat(90)}`).evaluate(scope)).toBe(91);
  });

  describe('long flat chains are not nested: they parse, evaluate and analyze without a deep stack', () => {
    // The 10,000-character source limit decides how many terms fit: 5,000 for `1+1`, 3,334 for `a&&b`.
    const chain = (first: string, rest: string, terms: number) => `${first}${rest.repeat(terms - 1)}`;

    it('5,000 terms of +, and string concatenation', () => {
      const sum = compileExpression(chain('1', '+1', 5000));
      expect(sum.evaluate(scope)).toBe(5000);
      expect(compileExpression(chain("'a'", "+'b'", 2500)).evaluate(scope)).toBe(`a${'b'.repeat(2499)}`);
      const text = compileExpression(chain('input.text', '+input.text', 900));
      expect(text.evaluate(scope)).toBe('x'.repeat(900));
      expect([...text.roots]).toEqual(['input']);
    });

    it('3,334 terms of && and ??, short-circuiting as nested would', () => {
      expect(compileExpression(chain('1', '&&1', 3334)).evaluate(scope)).toBe(1);
      expect(compileExpression(`${chain('1', '&&1', 3333)}&&0`).evaluate(scope)).toBe(0);
      // A falsy term stops the chain: the unknown names after it are never read.
      expect(compileExpression(`0${'&&input.nope.x'.repeat(600)}`).evaluate(scope)).toBe(0);
      expect(compileExpression(`null${'??null'.repeat(1600)}??7`).evaluate(scope)).toBe(7);
      expect(compileExpression(`input.obj.a${'??input.nope.x'.repeat(600)}`).evaluate(scope)).toBe(1);
      expect(compileExpression(`0${'||0'.repeat(3000)}||'last'`).evaluate(scope)).toBe('last');
    });

    it('mixed precedence gives the value JavaScript gives', () => {
      // 1 + 2*3 - 4*5 + 6*7 - …: a + / - chain whose right operands are * chains.
      let source = '1';
      let expected = 1;
      for (let i = 1; source.length < 9_980; i++) {
        const product = 2 * i * (2 * i + 1);
        source += `${i % 2 === 1 ? '+' : '-'}${2 * i}*${2 * i + 1}`;
        expected += i % 2 === 1 ? product : -product;
      }
      expect(source.split(/[+-]/).length).toBeGreaterThan(1000);
      expect(compileExpression(source).evaluate(scope)).toBe(expected);
      expect(compileExpression(`${chain('2', '*3', 20)}-${chain('10', '/2', 3)}%2`).evaluate(scope)).toBe(
        2 * 3 ** 19 - ((10 / 2 / 2) % 2),
      );
      expect(compileExpression(`1<2${'==true'.repeat(1600)}`).evaluate(scope)).toBe(true);
    });

    it('names read anywhere along a chain are found, in order', () => {
      const compiled = compileExpression(`${chain('steps.a.output.b', '+index', 700)}+steps.a.output.c`);
      expect([...compiled.roots]).toEqual(['steps', 'index']);
      expect(compiled.stepRefs).toEqual([
        { stepId: 'a', path: ['output', 'b'] },
        { stepId: 'a', path: ['output', 'c'] },
      ]);
      expect(compiled.namePositions.get('index')).toBe('steps.a.output.b+'.length);
    });

    it('a template holding a long chain', () => {
      expect(compileTemplate(`n = {{ ${chain('1', '+1', 4990)} }}`).render(scope)).toBe('n = 4990');
    });
  });

  it('caps what one evaluation may build in total', () => {
    const big = "'x'.padEnd(999999)";
    expect(attempt(`[${Array(20).fill(big).join(', ')}]`).message).toMatch(/too much data/);
    expect(compileExpression(`[${Array(3).fill(big).join(', ')}]`).evaluate(scope)).toHaveLength(3);
  });

  it('caps what a template render may build in total', () => {
    const template = compileTemplate(Array(20).fill("{{ 'x'.padEnd(999999) }}").join(''));
    expect(() => template.render(scope)).toThrow(/too much data/);
  });

  it('never reads inherited properties or pollutes prototypes', () => {
    expect(compileExpression('input.obj.hasOwnProperty').evaluate(scope)).toBeUndefined();
    expect(compileExpression('merge(parseJson(\'{"__proto__": {"polluted": true}}\'), {})').evaluate(scope)).toEqual(
      JSON.parse('{"__proto__": {"polluted": true}}'),
    );
    const merged = compileExpression('merge({}, parseJson(\'{"__proto__": {"polluted": true}}\'))').evaluate(
      scope,
    ) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(merged.polluted).toBeUndefined();
  });

  it('turns random strings into a compiled expression or an ExpressionError, nothing else', () => {
    const alphabet = [...'abcinputsteps.[]()\'"`{}?:!=<>+-*/%&|,0123 _$\\'];
    const tokens = ['input', 'steps', 'len(', 'constructor', '__proto__', '?.', '=>', '**', '??', 'new ', 'this'];
    const source = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.array(fc.constantFrom(...alphabet), { maxLength: 40 }).map((chars) => chars.join('')),
      fc.array(fc.constantFrom(...tokens, ...alphabet), { maxLength: 20 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(source, (text) => {
        try {
          const compiled = compileExpression(text);
          try {
            compiled.evaluate(scope);
          } catch (error) {
            if (!(error instanceof ExpressionError)) throw error;
          }
        } catch (error) {
          if (!(error instanceof ExpressionError)) throw error;
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('turns random templates into a compiled template or an ExpressionError, nothing else', () => {
    const pieces = ['{{', '}}', '{', '}', 'input.text', "'}}'", '"', '\\{{', ' ', 'x', '=', 'steps.a'];
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.array(fc.constantFrom(...pieces), { maxLength: 16 }).map((p) => p.join('')),
        ),
        (text) => {
          try {
            expect(typeof compileTemplate(text).render(scope)).toBe('string');
          } catch (error) {
            if (!(error instanceof ExpressionError)) throw error;
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
