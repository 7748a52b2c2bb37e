import { describe, expect, it } from 'vitest';
import { ExpressionError } from '../errors.ts';
import type { Json } from '../json.ts';
import {
  compileExpression,
  type ExprScope,
  inspectValue,
  isExpression,
  isTemplate,
  resolveValue,
  toJsonValue,
} from './index.ts';

const scope: ExprScope = {
  input: { ticket: 'Help!', n: 2 },
  steps: Object.assign(Object.create(null) as Record<string, { output: Json }>, {
    classify: { output: { object: { priority: 'high' } } },
  }),
  vars: Object.assign(Object.create(null), { item: 'it' }),
  index: 0,
};

describe('isExpression / isTemplate', () => {
  it.each<[unknown, boolean, boolean]>([
    ['=input', true, false],
    ['= 1', true, false],
    ['a {{ x }}', false, true],
    ['={{x}}', true, true],
    ['plain', false, false],
    ['', false, false],
    [1, false, false],
    [null, false, false],
    [{ a: '=x' }, false, false],
  ])('%j → %s, %s', (value, expression, template) => {
    expect(isExpression(value)).toBe(expression);
    expect(isTemplate(value)).toBe(template);
  });
});

describe('resolveValue', () => {
  it('evaluates expressions, renders templates, keeps other values', () => {
    const config = {
      priority: "=steps.classify.output.object.priority == 'high'",
      prompt: 'Ticket: {{ input.ticket }}',
      plain: 'just text',
      count: 3,
      flag: false,
      nothing: null,
      list: ['=input.n * 2', 'item {{ index }}', 7],
      nested: { deep: { value: '=item' } },
    };
    expect(resolveValue(config, scope)).toEqual({
      priority: true,
      prompt: 'Ticket: Help!',
      plain: 'just text',
      count: 3,
      flag: false,
      nothing: null,
      list: [4, 'item 0', 7],
      nested: { deep: { value: 'it' } },
    });
  });

  it('turns undefined into null, at any depth', () => {
    expect(resolveValue('=input.missing', scope)).toBeNull();
    expect(resolveValue('=[input.missing, { a: input.missing }]', scope)).toEqual([null, { a: null }]);
    expect(resolveValue('=1 / 0', scope)).toBeNull();
  });

  it('does not hand out the scope objects themselves', () => {
    const value = resolveValue('=steps.classify.output', scope) as { object: { priority: string } };
    value.object.priority = 'changed';
    expect(resolveValue('=steps.classify.output.object.priority', scope)).toBe('high');
  });

  it('keeps a "__proto__" key as data', () => {
    const value = resolveValue(JSON.parse('{"__proto__": {"x": "=input.n"}}'), scope) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(JSON.stringify(value)).toBe('{"__proto__":{"x":2}}');
  });

  it('throws ExpressionError for a bad expression', () => {
    expect(() => resolveValue({ a: ['=process.exit()'] }, scope)).toThrow(ExpressionError);
    expect(() => resolveValue('=input.missing.x', scope)).toThrow("cannot read 'x' of undefined (input.missing)");
  });
});

describe('toJsonValue', () => {
  it.each<[unknown, Json]>([
    [undefined, null],
    [Number.NaN, null],
    [Number.NEGATIVE_INFINITY, null],
    [
      [undefined, 1],
      [null, 1],
    ],
    [
      { a: undefined, b: { c: undefined } },
      { a: null, b: { c: null } },
    ],
    ['s', 's'],
    [true, true],
    [() => 1, null],
  ])('%j → %j', (value, expected) => {
    expect(toJsonValue(value)).toEqual(expected);
  });
});

describe('static analysis', () => {
  it.each<[string, string[], { stepId: string; path: string[] }[]]>([
    ['steps.a.output.text', ['steps'], [{ stepId: 'a', path: ['output', 'text'] }]],
    ["steps['a'].output['text']", ['steps'], [{ stepId: 'a', path: ['output', 'text'] }]],
    ['steps.a.output.items[0].name', ['steps'], [{ stepId: 'a', path: ['output', 'items', '0', 'name'] }]],
    ['steps.a.output.items[index].name', ['index', 'steps'], [{ stepId: 'a', path: ['output', 'items'] }]],
    ['steps.a?.output.text', ['steps'], [{ stepId: 'a', path: ['output', 'text'] }]],
    ['(steps.a?.output).text', ['steps'], [{ stepId: 'a', path: ['output', 'text'] }]],
    ['steps.a.output.text.toUpperCase()', ['steps'], [{ stepId: 'a', path: ['output', 'text'] }]],
    ['steps.a', ['steps'], [{ stepId: 'a', path: [] }]],
    ['steps[input.id].output', ['input', 'steps'], []],
    ['keys(steps)', ['steps'], []],
    [
      'len(steps.a.output) + steps.b.output.n + steps.a.output.n',
      ['steps'],
      [
        { stepId: 'a', path: ['output'] },
        { stepId: 'b', path: ['output', 'n'] },
        { stepId: 'a', path: ['output', 'n'] },
      ],
    ],
    ['item.x ?? iteration ?? args.q', ['args', 'item', 'iteration'], []],
    ['{ input, s: steps.x.output }', ['input', 'steps'], [{ stepId: 'x', path: ['output'] }]],
    ['1 + 2', [], []],
  ])('%s', (source, roots, stepRefs) => {
    const compiled = compileExpression(source);
    expect([...compiled.roots].sort()).toEqual(roots);
    expect(compiled.stepRefs).toEqual(stepRefs);
  });

  it('inspectValue collects issues by path, roots and step references, never throwing', () => {
    const report = inspectValue({
      ok: '=steps.a.output.x',
      prompt: 'Hi {{ input.name }} {{ steps.b.output.text }}',
      list: ['plain', '=process.env', { deep: 'x {{ 1 + }}' }],
      again: '=steps.a.output.x',
      n: 5,
    });
    expect(report.issues).toEqual([
      {
        path: ['list', 1],
        message: "unknown name 'process'; expressions can read input, steps, item, index, iteration, args",
        position: 0,
      },
      { path: ['list', 2, 'deep'], message: 'unexpected end of expression', position: 8 },
    ]);
    expect([...report.roots].sort()).toEqual(['input', 'steps']);
    expect(report.stepRefs).toEqual([
      { stepId: 'a', path: ['output', 'x'] },
      { stepId: 'b', path: ['output', 'text'] },
    ]);
  });

  it('inspectValue tolerates anything', () => {
    expect(inspectValue(undefined).issues).toEqual([]);
    expect(inspectValue(null).issues).toEqual([]);
    expect(inspectValue(() => 1).issues).toEqual([]);
    let deep: unknown = '=input';
    for (let i = 0; i < 500; i++) deep = [deep];
    expect(inspectValue(deep).issues[0]?.message).toMatch(/nested too deeply/);
  });
});
