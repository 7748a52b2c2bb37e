import { describe, expect, it } from 'vitest';
import { ExpressionError } from '../errors.ts';
import { compileExpression, EXPR_HELPERS, type ExprScope } from './index.ts';

const scope: ExprScope = {
  input: {
    s: '  Hello World  ',
    csv: 'a,b,,c',
    nums: [3, 1, 2],
    words: ['b', 'a', 'b'],
    obj: { a: 1, b: 'two', c: null },
    nested: [[1, [2]], [3]],
    people: [{ name: 'x' }, { name: 'y' }, { name: 'x' }],
    json: '{"k":[1,2]}',
  },
  steps: {},
};
const run = (source: string): unknown => compileExpression(source).evaluate(scope);

describe('helpers', () => {
  it.each<[string, unknown]>([
    ['len(input.nums)', 3],
    ["len('abc')", 3],
    ['len(input.obj)', 3],
    ['len(null)', 0],
    ['len(input.missing)', 0],
    ['keys(input.obj)', ['a', 'b', 'c']],
    ['values(input.obj)', [1, 'two', null]],
    ['entries({ a: 1 })', [['a', 1]]],
    ['lower(input.s)', '  hello world  '],
    ['upper(input.s)', '  HELLO WORLD  '],
    ['trim(input.s)', 'Hello World'],
    ['json(input.obj)', '{"a":1,"b":"two","c":null}'],
    ['json([1, input.missing])', '[1,null]'],
    ['json({ a: 1 }, 2)', '{\n  "a": 1\n}'],
    ["json('x')", '"x"'],
    ['parseJson(input.json)', { k: [1, 2] }],
    ['parseJson(input.json).k[1]', 2],
    ['join(input.words)', 'b,a,b'],
    ["join(input.words, ' | ')", 'b | a | b'],
    ["join([1, null, true, [2, 3]], '-')", '1--true-2,3'],
    ["split(input.csv, ',')", ['a', 'b', '', 'c']],
    ["includes(input.words, 'a')", true],
    ["includes('team', 'ea')", true],
    ['includes(input.nums, 5)', false],
    ["startsWith('hello', 'he')", true],
    ["endsWith('hello', 'lo')", true],
    ["replace('a-b-c', '-', '+')", 'a+b+c'],
    ["replace('cost', 'c', '$&$$')", '$&$$ost'],
    ["slice('hello', 1, 3)", 'el'],
    ["slice('hello', -2)", 'lo'],
    ['slice(input.nums, 1)', [1, 2]],
    ["concat('a', 1, true)", 'a1true'],
    ['concat([1], [2, 3], 4)', [1, 2, 3, 4]],
    ['first(input.nums)', 3],
    ['last(input.nums)', 2],
    ["first('xyz')", 'x'],
    ['first([])', undefined],
    ['first(input.missing)', undefined],
    ['round(2.5)', 3],
    ['round(1.005 * 1000) / 1000', 1.005],
    ['round(3.14159, 2)', 3.14],
    ['floor(-1.5)', -2],
    ['ceil(1.1)', 2],
    ['abs(-4)', 4],
    ['min(3, 1, 2)', 1],
    ['max(input.nums)', 3],
    ['min([])', undefined],
    ['sum(input.nums)', 6],
    ['sum([])', 0],
    ['avg(input.nums)', 2],
    ['avg([])', undefined],
    ["number('42')", 42],
    ["number(' 1.5 ')", 1.5],
    ['number(true)', 1],
    ["number('abc', -1)", -1],
    ['number(input.missing, 0)', 0],
    ['string(null)', ''],
    ['string(12)', '12'],
    ['string(input.obj)', '{"a":1,"b":"two","c":null}'],
    ["boolean('')", false],
    ["boolean('false')", true],
    ['boolean(input.nums)', true],
    ['isArray(input.nums)', true],
    ['isArray(input.obj)', false],
    ['isObject(input.obj)', true],
    ['isObject(input.nums)', false],
    ['isObject(null)', false],
    ["isString('')", true],
    ['isNumber(1)', true],
    ["isNumber('1')", false],
    ['isNumber(0 / 0)', false],
    ['isBoolean(false)', true],
    ['coalesce(null, input.missing, 0, 1)', 0],
    ['coalesce(null)', undefined],
    ["default(input.missing, 'd')", 'd'],
    ["default('', 'd')", ''],
    ['contains(input.people, { name: "y" })', true],
    ['contains(input.people, { name: "z" })', false],
    ["contains(input.obj, 'b')", true],
    ["contains('abc', 'bc')", true],
    ['contains(null, 1)', false],
    ['unique(input.words)', ['b', 'a']],
    ['unique(input.people)', [{ name: 'x' }, { name: 'y' }]],
    ["unique([1, '1', 1])", [1, '1']],
    ['flatten(input.nested)', [1, [2], 3]],
    ['flatten(input.nested, 2)', [1, 2, 3]],
    ['range(3)', [0, 1, 2]],
    ['range(1, 4)', [1, 2, 3]],
    ['range(5, 0, -2)', [5, 3, 1]],
    ['range(0)', []],
    ['range(3, 1)', []],
    ["pick(input.obj, ['a', 'c'])", { a: 1, c: null }],
    ["pick(input.obj, 'b')", { b: 'two' }],
    ["omit(input.obj, ['a', 'c'])", { b: 'two' }],
    ['merge(input.obj, { a: 9, d: 4 }, null)', { a: 9, b: 'two', c: null, d: 4 }],
  ])('%s → %j', (source, expected) => {
    expect(run(source)).toEqual(expected);
  });

  it('has every helper of the whitelist, and nothing nondeterministic', () => {
    const names = [...EXPR_HELPERS.keys()];
    for (const name of ['len', 'json', 'parseJson', 'range', 'pick', 'omit', 'merge', 'default', 'contains']) {
      expect(names).toContain(name);
    }
    for (const name of ['now', 'random', 'uuid', 'date']) expect(names).not.toContain(name);
  });

  it.each<[string, RegExp]>([
    ['len(1)', /^len\(\): first argument must be a string, array or object, got number$/],
    ['keys(input.nums)', /keys\(\): first argument must be an object, got array/],
    ['lower(1)', /lower\(\): first argument must be a string, got number/],
    ["parseJson('{')", /parseJson\(\): invalid JSON/],
    ['join(input.people)', /join\(\): cannot join objects; use json\(\)/],
    ["split('a', 1)", /split\(\): second argument must be a string, got number/],
    ['includes(1, 1)', /includes\(\): first argument must be a string or an array/],
    ['sum([1, "2"])', /sum\(\): expected only numbers, got string/],
    ["number('abc')", /number\(\): cannot convert "abc" to a number/],
    ["number('')", /cannot convert "" to a number/],
    ['number(null)', /cannot convert null to a number/],
    ['concat("a", {})', /cannot be concatenated/],
    ['round(1, 99)', /second argument must be an integer from 0 to 15, got 99/],
    ['range(0, 10, 0)', /range\(\): step must be a non-zero number/],
    ['flatten(1)', /first argument must be an array/],
    ['pick(1, "a")', /first argument must be an object/],
    ['pick({}, 1)', /second argument must be a string/],
    ['merge({}, 1)', /second argument must be an object/],
  ])('%s fails: %s', (source, message) => {
    const evaluate = () => run(source);
    expect(evaluate).toThrow(ExpressionError);
    expect(evaluate).toThrow(message);
  });

  it('checks arity when compiling', () => {
    expect(() => compileExpression('len()')).toThrow(/len\(\) takes 1 argument, got 0: len\(stringOrArrayOrObject\)/);
    expect(() => compileExpression('len(1, 2)')).toThrow(/takes 1 argument, got 2/);
    expect(() => compileExpression('json(1, 2, 3)')).toThrow(/takes 1 to 2 arguments, got 3/);
    expect(() => compileExpression('coalesce()')).toThrow(/takes at least 1 argument/);
  });

  it('refuses a helper used as a value', () => {
    expect(() => compileExpression('len')).toThrow(/'len' is a function; call it like len\(/);
  });

  it('gives the position of a failing call', () => {
    try {
      run('input.obj.a + lower(1)');
      expect.unreachable();
    } catch (error) {
      expect((error as ExpressionError).position).toBe('input.obj.a + '.length);
    }
  });
});

describe('methods', () => {
  it.each<[string, unknown]>([
    ["'abc'.toUpperCase()", 'ABC'],
    ["'ABC'.toLowerCase()", 'abc'],
    ['input.s.trim()', 'Hello World'],
    ['input.s.trimStart()', 'Hello World  '],
    ['input.s.trimEnd()', '  Hello World'],
    ["'hello'.includes('ell')", true],
    ["'hello'.startsWith('he')", true],
    ["'hello'.endsWith('lo')", true],
    ["'hello'.slice(1, -1)", 'ell'],
    ["'a,b'.split(',')", ['a', 'b']],
    ["'a,b,c'.split(',', 2)", ['a', 'b']],
    ["'ab'.split()", ['ab']],
    ["'hello'.indexOf('l')", 2],
    ["'5'.padStart(3, '0')", '005'],
    ["'5'.padEnd(3)", '5  '],
    ["'ab'.repeat(3)", 'ababab'],
    ["'a.b.c'.replaceAll('.', '/')", 'a/b/c'],
    ["'abc'.replaceAll('b', '[$&|$`|$\\'|$$|$1]')", 'a[b|a|c|$|$1]c'],
    ["'ab'.replaceAll('', '-')", '-a-b-'],
    ["'abc'.at(-1)", 'c'],
    ["'abc'.charAt(1)", 'b'],
    ['input.nums.includes(1)', true],
    ["input.words.join('+')", 'b+a+b'],
    ['input.nums.slice(1)', [1, 2]],
    ['input.words.indexOf("a")', 1],
    ['input.nums.at(-1)', 2],
    ['input.nums.concat([4], 5)', [3, 1, 2, 4, 5]],
    ['input.nums.length', 3],
  ])('%s → %j', (source, expected) => {
    expect(run(source)).toEqual(expected);
  });

  it('matches JavaScript for replaceAll patterns', () => {
    const cases: [string, string, string][] = [
      ['aXbXc', 'X', '$&$&'],
      ['aXbXc', 'X', "[$`/$']"],
      ['abc', '', '$$'],
      ['', '', 'x'],
      ['aaa', 'aa', 'b'],
      ['abc', 'z', 'q'],
      ['x$y', '$', '$<n>'],
    ];
    for (const [s, a, b] of cases) {
      const source = `${JSON.stringify(s)}.replaceAll(${JSON.stringify(a)}, ${JSON.stringify(b)})`;
      expect(run(source), source).toBe(s.replaceAll(a, b));
    }
  });

  it.each<[string, RegExp]>([
    ["'abc'.includes(1)", /\.includes\(\): first argument must be a string, got number/],
    ["'abc'.slice('1')", /first argument must be a number, got string/],
    ["'abc'.repeat(-1)", /must be an integer from 0/],
    ["'abc'.repeat(1.5)", /must be an integer from 0/],
    ["'abc'.toUpperCase(1)", /\.toUpperCase\(\) takes 0 arguments, got 1/],
    ["'abc'.replaceAll('a')", /takes 2 arguments, got 1/],
    ['input.people.join()', /cannot join objects/],
    ['(1).at(0)', /'at' is not a method of number/],
    ['input.nums.trim()', /'trim' is not a method of array/],
  ])('%s fails: %s', (source, message) => {
    expect(() => run(source)).toThrow(message);
  });

  it('refuses methods outside the whitelist when compiling', () => {
    expect(() => compileExpression("'a'.localeCompare('b')")).toThrow(/'localeCompare' is not an allowed method/);
    expect(() => compileExpression('input.nums.map(1)')).toThrow(/'map' is not an allowed method/);
    expect(() => compileExpression('input.nums.sort()')).toThrow(/'sort' is not an allowed method/);
  });
});
