import { describe, expect, it } from 'vitest';
import type { Json } from '../json.ts';
import { validateFlow } from '../validate/validate.ts';
import { checkInput } from './input-schema.ts';

const ticketSchema = {
  type: 'object',
  properties: {
    ticket: { type: 'string', minLength: 3 },
    priority: { enum: ['low', 'high'] },
    customer: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
    count: { type: 'integer', minimum: 0 },
  },
  required: ['ticket'],
  additionalProperties: false,
};

describe('checkInput', () => {
  it('accepts input that fits the schema, and anything when there is no schema', () => {
    expect(checkInput(ticketSchema, { ticket: 'printer on fire', tags: ['hw'], count: 2 })).toEqual([]);
    expect(checkInput(undefined, { whatever: 1 })).toEqual([]);
  });

  it.each([
    [{}, 'input.ticket', 'is required'],
    [{ ticket: 7 }, 'input.ticket', 'must be string, got number 7'],
    [{ ticket: 'hi' }, 'input.ticket', 'must be at least 3 characters'],
    [{ ticket: 'abc', priority: 'urgent' }, 'input.priority', 'must be one of "low", "high"'],
    [{ ticket: 'abc', customer: {} }, 'input.customer.email', 'is required'],
    [{ ticket: 'abc', tags: ['a', 1] }, 'input.tags[1]', 'must be string, got number 1'],
    [{ ticket: 'abc', tags: ['a', 'b', 'c'] }, 'input.tags', 'must have at most 2 items'],
    [{ ticket: 'abc', count: 1.5 }, 'input.count', 'must be integer, got number 1.5'],
    [{ ticket: 'abc', count: -1 }, 'input.count', 'must be ≥ 0'],
    [{ ticket: 'abc', extra: true }, 'input.extra', 'is not an allowed field'],
    ['just text', 'input', 'must be object, got string "just text"'],
  ])('names the field: %j → %s %s', (input, path, message) => {
    expect(checkInput(ticketSchema, input)).toContainEqual({ path, message });
  });
});

describe('checkInput: the JSON Schema keywords a hand-written subset missed', () => {
  const schema = {
    type: 'object',
    $defs: { positive: { type: 'number', exclusiveMinimum: 0 } },
    properties: {
      code: { type: 'string', pattern: '^[A-Z]{3}-\\d+$' },
      amount: { $ref: '#/$defs/positive' },
      contact: {
        oneOf: [
          { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] },
          { type: 'object', properties: { phone: { type: 'string' } }, required: ['phone'] },
        ],
      },
    },
  };

  it.each<[string, Json, string, RegExp]>([
    ['pattern', { code: 'abc-1' }, 'input.code', /must match the pattern/],
    ['$ref', { amount: -5 }, 'input.amount', /less than|0/],
    ['oneOf', { contact: { fax: '1' } }, 'input.contact', /matches none of the allowed shapes \(oneOf\)/],
    ['format', { contact: { email: 'not an address' } }, 'input.contact', /oneOf/],
  ])('checks %s', (_keyword, input, path, message) => {
    expect(checkInput(schema, input)).toContainEqual({ path, message: expect.stringMatching(message) });
  });

  it('accepts input that satisfies all of them', () => {
    expect(checkInput(schema, { code: 'ABC-12', amount: 3, contact: { phone: '555' } })).toEqual([]);
  });

  it('names where an input nests too deeply, before any recursive check runs', () => {
    let deep: Json = 1;
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    const [issue] = checkInput({ type: 'object' }, { deep });
    expect(issue?.path).toMatch(/^input\.deep\.a\.a.*more levels/);
    expect(issue?.message).toMatch(/nested more than 256 levels/);
  });

  it('names odd keys with brackets', () => {
    const issues = checkInput(
      { type: 'object', properties: { 'first name': { type: 'string' } } },
      { 'first name': 1 },
    );
    expect(issues).toEqual([{ path: 'input["first name"]', message: 'must be string, got number 1' }]);
  });
});

describe('validateFlow: the input schema', () => {
  const flowWith = (input: Record<string, unknown>) =>
    validateFlow({ irVersion: 1, id: 'f', name: 'F', input, steps: [{ id: 'a', type: 'transform', value: 1 }] });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    [
      'a catastrophic pattern',
      { type: 'string', pattern: '^(a+)+$' },
      'input.pattern',
      /backtrack for a very long time/,
    ],
    ['an invalid pattern', { type: 'string', pattern: '([a-' }, 'input.pattern', /not a valid regular expression/],
    [
      'a catastrophic patternProperties key',
      { type: 'object', patternProperties: { '(x*)*y': {} } },
      'input.patternProperties["(x*)*y"]',
      /backtrack/,
    ],
    ['a $ref that resolves nowhere', { $ref: '#/$defs/missing' }, 'input', /cannot be used: Unresolved \$ref/],
  ])('refuses %s', (_name, input, path, message) => {
    const result = flowWith(input);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors).toContainEqual({
      stepId: null,
      path,
      message: expect.stringMatching(message),
    });
  });

  it('accepts a safe pattern', () => {
    expect(flowWith({ type: 'string', pattern: '^[a-z]+(-[a-z]+)*$' }).ok).toBe(true);
  });
});
