import { describe, expect, it } from 'vitest';
import { ExpressionError } from '../errors.ts';
import { compileExpression, type ExprNode } from './index.ts';

const ast = (source: string): ExprNode => compileExpression(source).ast;

/** Prints an AST back as fully parenthesized JavaScript, to check structure. */
function print(node: ExprNode): string {
  switch (node.type) {
    case 'Literal':
      return node.raw;
    case 'Identifier':
      return node.name;
    case 'Array':
      return `[${node.elements.map(print).join(', ')}]`;
    case 'Object':
      return `{${node.properties.map((p) => (p.shorthand ? p.rawKey : `${p.rawKey}: ${print(p.value)}`)).join(', ')}}`;
    case 'Member':
      return `${print(node.object)}${node.optional ? '?.' : '.'}${node.property}`;
    case 'Index':
      return `${print(node.object)}${node.optional ? '?.' : ''}[${print(node.index)}]`;
    case 'Call':
      return `${node.callee}(${node.args.map(print).join(', ')})`;
    case 'MethodCall':
      return `${print(node.object)}${node.optional ? '?.' : '.'}${node.method}(${node.args.map(print).join(', ')})`;
    case 'Chain':
      return `chain(${print(node.expression)})`;
    case 'Unary':
      return `(${node.operator}${node.operator === 'typeof' ? ' ' : ''}${print(node.argument)})`;
    case 'Binary':
    case 'Logical':
      return `(${print(node.left)} ${node.operator} ${print(node.right)})`;
    case 'Conditional':
      return `(${print(node.test)} ? ${print(node.consequent)} : ${print(node.alternate)})`;
  }
}

describe('parser', () => {
  it.each<[string, string]>([
    ['1 + 2 * 3', '(1 + (2 * 3))'],
    ['1 * 2 + 3', '((1 * 2) + 3)'],
    ['1 - 2 - 3', '((1 - 2) - 3)'],
    ['2 ** 3 ** 2', '(2 ** (3 ** 2))'],
    ['!input.x == 1', '((!input.x) == 1)'],
    ['typeof input == "string"', '((typeof input) == "string")'],
    ['1 < 2 === true', '((1 < 2) === true)'],
    ['input && steps || item', '((input && steps) || item)'],
    ['input || steps && item', '(input || (steps && item))'],
    ['input ?? steps ?? item', '((input ?? steps) ?? item)'],
    ['(input ?? steps) || item', '((input ?? steps) || item)'],
    ['input ? 1 : item ? 2 : 3', '(input ? 1 : (item ? 2 : 3))'],
    ['input ? item ? 1 : 2 : 3', '(input ? (item ? 1 : 2) : 3)'],
    ['input?.a.b', 'chain(input?.a.b)'],
    ['input?.[0]?.b', 'chain(input?.[0]?.b)'],
    ['(input?.a).b', 'chain(input?.a).b'],
    ['input?.5:1', '(input ? .5 : 1)'],
    ['input.name.slice(1, -1)', 'input.name.slice(1, (-1))'],
    ['len(input)', 'len(input)'],
    ['{ a: 1, "b": input, input }', '{a: 1, "b": input, input}'],
    ['[1, [2]]', '[1, [2]]'],
    ['input.if.true.null.typeof', 'input.if.true.null.typeof'],
    ['  input  ', 'input'],
    ['0x1F + 1e-3', '(0x1F + 1e-3)'],
  ])('%s', (source, printed) => {
    expect(print(ast(source))).toBe(printed);
  });

  it('keeps operators and literals as written', () => {
    expect(ast("input != 'x'")).toMatchObject({ type: 'Binary', operator: '!=', right: { raw: "'x'", value: 'x' } });
    expect(ast('0x10')).toMatchObject({ type: 'Literal', raw: '0x10', value: 16 });
    expect(ast('input?.a')).toMatchObject({ type: 'Chain', expression: { type: 'Member', optional: true } });
  });

  it('records source spans', () => {
    const node = ast('input.a + steps.b.output');
    expect(node).toMatchObject({ start: 0, end: 24, left: { start: 0, end: 7 }, right: { start: 10, end: 24 } });
  });

  it('strips a leading "=" and keeps positions relative to the rest', () => {
    const compiled = compileExpression('=input.a');
    expect(compiled.source).toBe('input.a');
    try {
      compileExpression('=input.a +');
      expect.unreachable();
    } catch (error) {
      expect((error as ExpressionError).source).toBe('input.a +');
      expect((error as ExpressionError).position).toBe(9);
    }
  });

  it.each<[string, RegExp, number]>([
    ['', /empty expression/, 0],
    ['=', /empty expression/, 0],
    ['input +', /unexpected end of expression/, 7],
    ['input input', /unexpected 'input'/, 6],
    ['process', /unknown name 'process'; expressions can read input, steps, item, index, iteration, args/, 0],
    ['input.a + globalThis', /unknown name 'globalThis'/, 10],
    ['constructor', /unknown name 'constructor'/, 0],
    ['foo(1)', /'foo' is not an allowed function/, 0],
    ['input.a.', /unexpected end of expression; expected a property name/, 8],
    ['input.1', /unexpected end of expression|invalid number|unexpected/, 5],
    ['-2 ** 2', /parenthesize the left side of '\*\*'/, 3],
    ['typeof input ** 2', /parenthesize/, 13],
    ['input ?? steps || item', /cannot mix '\?\?' with '&&' or '\|\|'/, 15],
    ['input || steps ?? item', /cannot mix/, 15],
    ['input && steps ?? item', /cannot mix/, 15],
    ["'abc", /unterminated string/, 0],
    ["'a\nb'", /unterminated string/, 0],
    ["'\\x4'", /invalid \\x escape/, 1],
    ["'\\u12'", /invalid \\u escape/, 1],
    ["'\\u{110000}'", /invalid \\u escape/, 1],
    ["'\\1'", /invalid escape/, 1],
    ['01', /cannot start with 0/, 0],
    ['1n', /invalid number/, 0],
    ['3in', /invalid number/, 0],
    ['1e', /invalid number exponent/, 0],
    ['0x', /invalid number/, 0],
    ['#x', /unexpected character '#'/, 0],
    ['@', /unexpected character '@'/, 0],
    ['input.a = 1', /assignment is not allowed \('='\); compare with === or ==/, 8],
    ['[1,,2]', /unexpected ','/, 3],
    ['{ a 1 }', /expected ':'/, 4],
    ['{ a: 1 b: 2 }', /expected ','/, 7],
    ['(1', /expected '\)'/, 2],
    ['input[1', /expected '\]'/, 7],
    ['input ? 1', /expected ':'/, 9],
    ['undefined', /'undefined' is not a name here/, 0],
  ])('%j fails: %s at %i', (source, message, position) => {
    let error: unknown;
    try {
      compileExpression(source);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExpressionError);
    expect((error as ExpressionError).message).toMatch(message);
    expect((error as ExpressionError).position).toBe(position);
  });
});
