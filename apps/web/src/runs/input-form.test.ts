import { describe, expect, it } from 'vitest';
import { parseRoute } from '../components/route.ts';
import { emptyInput, inputFields } from './input-form.ts';

describe('inputFields', () => {
  it('makes fields of a flat object schema of scalars', () => {
    const fields = inputFields({
      type: 'object',
      properties: {
        text: { type: 'string' },
        n: { type: 'integer' },
        ok: { type: 'boolean' },
        tone: { type: 'string', enum: ['a', 'b'] },
      },
      required: ['text'],
    });
    expect(fields?.map((field) => [field.name, field.type, field.required])).toEqual([
      ['text', 'string', true],
      ['n', 'integer', false],
      ['ok', 'boolean', false],
      ['tone', 'string', false],
    ]);
    expect(emptyInput(fields!)).toEqual({ text: '', n: 0, ok: false, tone: 'a' });
  });

  it('falls back to JSON for nested or missing schemas', () => {
    expect(inputFields(undefined)).toBeNull();
    expect(inputFields({ type: 'object', properties: { list: { type: 'array' } } })).toBeNull();
    expect(inputFields({ type: 'object', properties: {} })).toBeNull();
  });
});

describe('parseRoute', () => {
  it('reads the list, editor and run routes', () => {
    expect(parseRoute('#/')).toEqual({ screen: 'list' });
    expect(parseRoute('#/flows/a-b')).toEqual({ screen: 'editor', flowId: 'a-b' });
    expect(parseRoute('#/flows/a-b/runs/r%201')).toEqual({ screen: 'editor', flowId: 'a-b', runId: 'r 1' });
  });
});
