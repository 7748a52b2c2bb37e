import { describe, expect, it } from 'vitest';
import { freshName, isPropertyListSchema, propertiesToSchema, schemaToProperties } from './json-schema.ts';

describe('JSON Schema property list', () => {
  const schema = {
    type: 'object',
    title: 'Input',
    properties: {
      topic: { type: 'string', description: 'What to write about', minLength: 1 },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['topic'],
    additionalProperties: false,
  };

  it('reads properties and writes them back unchanged', () => {
    const props = schemaToProperties(schema);
    expect(props.map((prop) => [prop.name, prop.type, prop.required, prop.description])).toEqual([
      ['topic', 'string', true, 'What to write about'],
      ['tags', 'array', false, ''],
    ]);
    expect(propertiesToSchema(props, schema)).toEqual(schema);
  });

  it('adds, renames, retypes and removes while keeping other keywords', () => {
    const props = schemaToProperties(schema);
    const edited = [
      { ...props[0]!, name: 'subject', type: 'string' as const },
      { name: 'count', type: 'integer' as const, required: true, description: '', rest: {} },
    ];
    expect(propertiesToSchema(edited, schema)).toEqual({
      type: 'object',
      title: 'Input',
      additionalProperties: false,
      properties: {
        subject: { type: 'string', description: 'What to write about', minLength: 1 },
        count: { type: 'integer' },
      },
      required: ['subject', 'count'],
    });
    expect(propertiesToSchema([], undefined)).toEqual({ type: 'object', properties: {} });
  });

  it('knows what the list can show, and names new properties', () => {
    expect(isPropertyListSchema(undefined)).toBe(true);
    expect(isPropertyListSchema(schema)).toBe(true);
    expect(isPropertyListSchema({ type: 'array' })).toBe(false);
    expect(freshName(schemaToProperties({ properties: { field2: {} } }))).toBe('field3');
  });
});
