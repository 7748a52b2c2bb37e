/**
 * What import reads where: the kind of value each step config field holds (the IR step schemas,
 * field by field), the positional forms, and the names a nested body may destructure.
 */
import type { StepType } from '@weft/engine';

export type FieldKind =
  | 'json'
  | 'text'
  | 'expr'
  | 'value'
  | 'headers'
  | 'code'
  | 'cases'
  | 'body'
  | 'branches'
  | 'while'
  | 'name';

export const COMMON: Record<string, FieldKind> = { name: 'name', retry: 'json', timeout: 'json' };

/** What each config field holds, per step type (the IR step schemas, field by field). */
export const FIELDS: { [T in StepType]: Record<string, FieldKind> } = {
  llm: {
    model: 'json',
    system: 'text',
    prompt: 'text',
    messages: 'expr',
    tools: 'json',
    maxSteps: 'json',
    schema: 'json',
  },
  tool: { tool: 'json', args: 'value' },
  code: { source: 'code', args: 'value' },
  http: { method: 'json', url: 'text', headers: 'headers', body: 'value' },
  transform: { value: 'value' },
  branch: { cases: 'cases', else: 'body' },
  parallel: { branches: 'branches' },
  map: { items: 'expr', as: 'json', concurrency: 'json', steps: 'body' },
  loop: { while: 'while', maxIterations: 'json', steps: 'body' },
  approval: { prompt: 'text', onTimeout: 'json' },
  spawn: { flow: 'json', input: 'value' },
  sleep: { duration: 'json' },
  fail: { message: 'text' },
};

/** Positional forms the code-first API also accepts: `step.tool('id', 'name', args)`. */
export const POSITIONAL: Partial<Record<StepType, [string, string?]>> = {
  tool: ['tool', 'args'],
  code: ['source', 'args'],
  spawn: ['flow', 'input'],
  sleep: ['duration'],
  fail: ['message'],
};

/** The names each kind of body may destructure from its argument. */
export const BODY_NAMES: Record<'plain' | 'map' | 'loop', ReadonlySet<string>> = {
  plain: new Set(['step', 'steps', 'input']),
  map: new Set(['step', 'steps', 'input', 'item', 'index']),
  loop: new Set(['step', 'steps', 'input', 'iteration']),
};

/**
 * Names a map body cannot bind its item to: the body's other parameters, and names whose
 * meaning import assumes (`eq(a, b)` is `==`, `template\`…\`` a template, `helpers.x` a
 * helper). Bound to the item, they would mean something else in the module than in the flow.
 */
export const UNBINDABLE = new Set([
  'step',
  'steps',
  'input',
  'index',
  'iteration',
  'eq',
  'ne',
  'helpers',
  'template',
  'process',
]);
