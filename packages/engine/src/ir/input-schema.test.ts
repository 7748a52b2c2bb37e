import { describe, expect, it } from 'vitest';
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
