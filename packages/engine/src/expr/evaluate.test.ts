import { describe, expect, it } from 'vitest';
import { ExpressionError } from '../errors.ts';
import type { Json } from '../json.ts';
import { compileExpression, type ExprScope } from './index.ts';

const steps = Object.assign(Object.create(null) as Record<string, { output: Json }>, {
  a: { output: { x: 42, text: 'Hello', b: null, list: [1, 2, 3], nested: { deep: { v: 'd' } }, 'odd key': 7 } },
  'with-dash': { output: 'dashed' },
});
const scope: ExprScope = {
  input: { name: 'Ann', n: 3, zero: 0, empty: '', flag: false, items: [{ id: 'p' }, { id: 'q' }], o: { k: 'v' } },
  steps,
  vars: Object.assign(Object.create(null), { item: { id: 'it' }, line: { sku: 'L1' } }),
  index: 2,
  iteration: 5,
  args: { q: 'query' },
};
const run = (source: string, s: ExprScope = scope): unknown => compileExpression(source).evaluate(s);
const failure = (source: string, s: ExprScope = scope): ExpressionError => {
  try {
    run(source, s);
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw new Error(`expected ExpressionError, got ${String(error)}`);
  }
  throw new Error(`expected '${source}' to fail`);
};

describe('arithmetic and precedence', () => {
  it.each<[string, unknown]>([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 - 4 - 3', 3],
    ['2 ** 3 ** 2', 512],
    ['(2 ** 3) ** 2', 64],
    ['2 ** -1', 0.5],
    ['(-2) ** 2', 4],
    ['-(2 ** 2)', -4],
    ['7 % 3', 1],
    ['7 / 2', 3.5],
    ['1 / 0', Number.POSITIVE_INFINITY],
    ['-input.n', -3],
    ['+input.n', 3],
    ['- -1', 1],
    ['!true', false],
    ['!!input.empty', false],
    ['!input.zero', true],
    ['typeof input.name', 'string'],
    ['typeof input.missing', 'undefined'],
    ['typeof null', 'object'],
    ['typeof -1', 'number'],
    ['1 + 2 < 4', true],
    ['1 < 2 == true', true],
    ['1 + 2 === 3 && 2 > 1', true],
    ['false || 1 + 1', 2],
    ['true ? 1 : 2', 1],
    ['false ? 1 : true ? 2 : 3', 2],
    ['1 > 2 ? 1 : 0 ? 5 : 6', 6],
    ['input.n > 2 ? "big" : "small"', 'big'],
    ["'a' + 'b' + 1 + 2", 'ab12'],
    ['1 + 2 + "a"', '3a'],
    ["'x' + true", 'xtrue'],
    ["'b' > 'a'", true],
    ["'B' < 'a'", true],
    ['0x10 + 0b11 + 0o7 + 1e2 + .5', 16 + 3 + 7 + 100 + 0.5],
    ['3 >= 3 && 3 <= 3 && !(3 > 3)', true],
  ])('%s → %j', (source, expected) => {
    expect(run(source)).toEqual(expected);
  });
});

describe('logical operators', () => {
  it.each<[string, unknown]>([
    ['input.zero || "fallback"', 'fallback'],
    ['input.zero ?? "fallback"', 0],
    ['input.missing ?? "fallback"', 'fallback'],
    ['steps.a.output.b ?? 1', 1],
    ['input.name && input.n', 3],
    ['input.empty && input.n', ''],
    ['null ?? null ?? 3', 3],
    ['(input.zero || null) ?? 4', 4],
    ['input.zero || (null ?? 5)', 5],
  ])('%s → %j', (source, expected) => {
    expect(run(source)).toEqual(expected);
  });

  it('short-circuits: the right side is not evaluated', () => {
    expect(run('false && input.missing.x')).toBe(false);
    expect(run('true || input.missing.x')).toBe(true);
    expect(run('1 ?? input.missing.x')).toBe(1);
    expect(run('true ? 1 : input.missing.x')).toBe(1);
  });
});

describe('== is strict except that null equals a missing value', () => {
  it.each<[string, boolean]>([
    ["1 == '1'", false],
    ["1 != '1'", true],
    ['null == input.missing', true],
    ['input.missing == null', true],
    ['input.missing === null', false],
    ['input.missing != null', false],
    ['0 == null', false],
    ['input.missing === input.other', true],
    ['0 == false', false],
    ["'' == 0", false],
    ['1 == 1', true],
    ["'a' === 'a'", true],
    ['input.o == input.o', true],
    ['[1] == [1]', false],
  ])('%s → %s', (source, expected) => {
    expect(run(source)).toBe(expected);
  });

  it('has no undefined literal, and says what to use instead', () => {
    expect(failure('input.x == undefined').message).toMatch(/'undefined' is not a name here; use null/);
  });

  it('keeps the operator as written in the AST', () => {
    const ast = compileExpression('a == 1'.replace('a', 'input')).ast;
    expect(ast).toMatchObject({ type: 'Binary', operator: '==' });
  });
});

describe('operators never coerce', () => {
  it.each([
    "'a' - 1",
    "'3' * 2",
    'input.o + 1',
    "input.items + ''",
    'input.missing + 1',
    "'x' + input.missing",
    "'x' + null",
    'null < 1',
    "1 < '2'",
    "-'1'",
    '+true',
    'true + 1',
    '[] < []',
  ])('%s throws', (source) => {
    expect(failure(source).message).toMatch(/cannot apply/);
  });

  it('says how to handle a missing value in +', () => {
    expect(failure("'x' + input.missing").message).toContain("?? ''");
  });
});

describe('member access', () => {
  it.each<[string, unknown]>([
    ['steps.a.output.x', 42],
    ["steps['a'].output['x']", 42],
    ["steps['with-dash'].output", 'dashed'],
    ["steps.a.output['odd key']", 7],
    ['steps.a.output.nested.deep.v', 'd'],
    ['steps.a.output.list[0]', 1],
    ['steps.a.output.list[index]', 3],
    ["steps.a.output.list['1']", 2],
    ['steps.a.output.list[-1]', undefined],
    ['steps.a.output.list[1.5]', undefined],
    ['steps.a.output.list[99]', undefined],
    ['steps.a.output.list.length', 3],
    ['steps.a.output.text.length', 5],
    ['steps.a.output.text[1]', 'e'],
    ["steps.a.output.text['1']", 'e'],
    ['steps.a.output.text[9]', undefined],
    ['steps.a.output.missing', undefined],
    ['steps.nope', undefined],
    ['input.items[1].id', 'q'],
    ['input.o[input.o.k == "v" ? "k" : "z"]', 'v'],
    ['item.id', 'it'],
    ['line.sku', 'L1'],
    ['iteration', 5],
    ['args.q', 'query'],
    ['(1).x', undefined],
    ['true.x', undefined],
    ['{ a: { b: 1 } }.a.b', 1],
    ['[10, 20][1]', 20],
    ['input.o.hasOwnProperty', undefined],
    ['input.o.toString', undefined],
    ['input.items.map', undefined],
    ["steps.a.output.text['toUpperCase']", undefined],
  ])('%s → %j', (source, expected) => {
    expect(run(source)).toEqual(expected);
  });

  it('reads only own properties', () => {
    const proto = { inherited: 'secret' };
    const input = Object.create(proto) as Json;
    expect(run('input.inherited', { input, steps })).toBeUndefined();
  });

  it('names the path when reading through null or undefined', () => {
    const e = failure('steps.a.output.b.c');
    expect(e.message).toBe("cannot read 'c' of null (steps.a.output.b)");
    expect(e.position).toBe('steps.a.output.b.'.length);
    expect(e.source).toBe('steps.a.output.b.c');
    expect(failure('steps.a.output.missing.c').message).toBe("cannot read 'c' of undefined (steps.a.output.missing)");
    expect(failure('steps.zzz.output').message).toBe("cannot read 'output' of undefined (steps.zzz)");
    expect(failure("input.missing['k']").message).toBe("cannot read 'k' of undefined (input.missing)");
    expect(failure('input.missing[0]').message).toBe('cannot read 0 of undefined (input.missing)');
    expect(failure('input.missing.toUpperCase()').message).toBe(
      "cannot call 'toUpperCase' on undefined (input.missing)",
    );
  });

  it('reads undefined roots as undefined (e.g. index outside a map)', () => {
    expect(run('index', { input: null, steps })).toBeUndefined();
    expect(failure('index.id', { input: null, steps }).message).toBe("cannot read 'id' of undefined (index)");
  });

  it('fails on a name no enclosing map binds, naming the names in scope', () => {
    expect(failure('item', { input: null, steps }).message).toBe(
      "unknown name 'item'; expressions can read input, steps here",
    );
    const vars = Object.assign(Object.create(null), { order: 1 });
    expect(failure('line.sku', { input: null, steps, vars }).message).toBe(
      "unknown name 'line'; expressions can read input, steps, order here",
    );
    // A name on Object.prototype is not a variable because the scope object inherits it.
    expect(failure('toString', { input: null, steps, vars }).message).toMatch(/unknown name 'toString'/);
  });

  it('rejects non-string, non-number keys', () => {
    expect(failure('input.o[null]').message).toMatch(/must be a string or a number, got null/);
    expect(failure('input.o[[1]]').message).toMatch(/got array/);
    expect(failure('input.o[true]').message).toMatch(/got boolean/);
  });
});

describe('optional chaining', () => {
  it.each<[string, unknown]>([
    ['input.missing?.x', undefined],
    ['input.missing?.x.y.z', undefined],
    ['input.missing?.[0].y', undefined],
    ['input.missing?.toUpperCase().length', undefined],
    ['steps.a.output.b?.c', undefined],
    ['input.o?.k', 'v'],
    ['input?.o?.k', 'v'],
    ['input.name?.toUpperCase()', 'ANN'],
    ['input.items?.[0]?.id', 'p'],
    ['input.missing?.x ?? "d"', 'd'],
    ['len(input.missing?.x)', 0],
  ])('%s → %j', (source, expected) => {
    expect(run(source)).toEqual(expected);
  });

  it('stops at parentheses, like JavaScript', () => {
    expect(failure('(input.missing?.x).y').message).toBe("cannot read 'y' of undefined (input.missing?.x)");
  });

  it('does not short-circuit past a non-optional link whose object exists', () => {
    expect(failure('input.o?.missing.x').message).toBe("cannot read 'x' of undefined (input.o?.missing)");
  });

  it('does not evaluate the key of a short-circuited index', () => {
    expect(run('input.missing?.[input.nope.x]')).toBeUndefined();
  });
});

describe('literals', () => {
  it.each<[string, unknown]>([
    ["'it\\'s'", "it's"],
    ['"say \\"hi\\""', 'say "hi"'],
    ["'a\\nb\\tc'", 'a\nb\tc'],
    ["'\\x41\\u0042\\u{1F600}'", 'AB😀'],
    ["'\\\\'", '\\'],
    ['null', null],
    ['[]', []],
    ['[1, [2, [3]], "x",]', [1, [2, [3]], 'x']],
    ['{}', {}],
    ["{ a: 1, 'b c': 2, 3: 'three', input, }", { a: 1, 'b c': 2, 3: 'three', input: scope.input }],
    ['{ a: 1, a: 2 }', { a: 2 }],
    ['{ true: 1, null: 2, if: 3 }', { true: 1, null: 2, if: 3 }],
  ])('%s → %j', (source, expected) => {
    expect(run(source)).toEqual(expected);
  });

  it('builds fresh, ordinary objects', () => {
    const value = run('{ a: 1 }') as object;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(run('[1]')).not.toBe(run('[1]'));
  });
});

describe('compilation cache', () => {
  it('caches compiled expressions by source', () => {
    expect(compileExpression('steps.a.output.x')).toBe(compileExpression('steps.a.output.x'));
    expect(compileExpression('=steps.a.output.x').source).toBe('steps.a.output.x');
  });
});
