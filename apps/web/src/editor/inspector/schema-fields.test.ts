import { STEP_TYPES, type StepType } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { type FieldKind, retryFields, stepFields } from './schema-fields.ts';

const kinds = (type: StepType) => Object.fromEntries(stepFields(type).map((field) => [field.name, field.kind]));

describe('stepFields', () => {
  it('gives every step type the expected widget per field', () => {
    const advanced = { retry: 'retry', timeout: 'duration' } as const;
    const expected: Record<StepType, Record<string, FieldKind>> = {
      llm: {
        name: 'text',
        model: 'model',
        system: 'expression',
        prompt: 'expression',
        messages: 'expression',
        tools: 'string-list',
        maxSteps: 'number',
        schema: 'json-schema',
        ...advanced,
      },
      tool: { name: 'text', tool: 'text', args: 'key-value', ...advanced },
      code: { name: 'text', source: 'code', args: 'key-value', ...advanced },
      http: {
        name: 'text',
        method: 'select',
        url: 'expression',
        headers: 'key-value',
        body: 'value',
        idempotencyKey: 'checkbox',
        ...advanced,
      },
      transform: { name: 'text', value: 'value', ...advanced },
      branch: { name: 'text', cases: 'cases', ...advanced },
      parallel: { name: 'text', ...advanced },
      map: { name: 'text', items: 'expression', as: 'text', concurrency: 'number', ...advanced },
      loop: { name: 'text', while: 'expression', maxIterations: 'number', ...advanced },
      approval: { name: 'text', timeout: 'duration', prompt: 'expression', onTimeout: 'select', retry: 'retry' },
      spawn: { name: 'text', flow: 'text', input: 'key-value', ...advanced },
      sleep: { name: 'text', duration: 'duration', ...advanced },
      fail: { name: 'text', message: 'expression', ...advanced },
    };
    for (const type of STEP_TYPES) expect(kinds(type), type).toEqual(expected[type]);
  });

  it('never offers id, type or nested step lists', () => {
    for (const type of STEP_TYPES) {
      const names = stepFields(type).map((field) => field.name);
      for (const hidden of ['id', 'type', 'steps', 'else', 'branches']) expect(names, type).not.toContain(hidden);
    }
  });

  it('reads required-ness, options, bounds and expression details from the schema', () => {
    const llm = new Map(stepFields('llm').map((field) => [field.name, field]));
    expect(llm.get('model')?.required).toBe(true);
    expect(llm.get('prompt')).toMatchObject({ required: false, exprOnly: false, multiline: true });
    expect(llm.get('messages')).toMatchObject({ exprOnly: true });
    expect(llm.get('maxSteps')).toMatchObject({ min: 1, max: 100 });
    const http = new Map(stepFields('http').map((field) => [field.name, field]));
    expect(http.get('method')?.options).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);
    expect(http.get('url')).toMatchObject({ required: true, exprOnly: false, multiline: false });
    const map = new Map(stepFields('map').map((field) => [field.name, field]));
    expect(map.get('items')).toMatchObject({ required: true, exprOnly: true });
  });

  it('puts retry and a call timeout under Advanced, last; the approval timeout is its wait, not advanced', () => {
    const code = stepFields('code');
    expect(code.filter((field) => field.advanced).map((field) => field.name)).toEqual(['retry', 'timeout']);
    expect(code.slice(-2).every((field) => field.advanced)).toBe(true);
    const approval = stepFields('approval');
    expect(approval.find((field) => field.name === 'timeout')?.advanced).toBe(false);
  });

  it('reads what an absent field means from the schema: a declared default or a .default()', () => {
    const http = new Map(stepFields('http').map((field) => [field.name, field]));
    expect(http.get('idempotencyKey')).toMatchObject({ kind: 'checkbox', required: false, default: true });
    expect(http.get('method')).not.toHaveProperty('default');
    const retry = new Map(retryFields().map((field) => [field.name, field]));
    expect(retry.get('backoff')?.default).toBe('exponential');
    expect(retry.get('maxAttempts')).not.toHaveProperty('default');
  });

  it('walks the retry object', () => {
    expect(retryFields().map((field) => [field.name, field.kind, field.required])).toEqual([
      ['maxAttempts', 'number', true],
      ['backoff', 'select', false],
      ['initialDelay', 'duration', false],
      ['maxDelay', 'duration', false],
    ]);
  });
});
