/**
 * Every step type's manifest agrees with its schema, so a new type cannot forget to declare a
 * field, declare one it does not have, or call a field an expression that the schema does not
 * treat as one. Each declared kind is probed against the real schema with values that kind
 * must accept and refuse.
 */
import { describe, expect, it } from 'vitest';
import { retrySchema } from '../ir/common.ts';
import { EXPRESSION_KINDS, type FieldKind, type FieldSpec, RETRY_FIELDS, STEP_LIST_KINDS } from './manifest.ts';
import {
  childLists,
  manifestOf,
  STEP_MANIFESTS,
  STEP_TYPES,
  type Step,
  type StepType,
  stepSchema,
} from './registry.ts';

const BASE_KEYS = new Set(['id', 'type', 'name', 'retry', 'timeout']);
const CHILD = { id: 'child', type: 'fail', message: 'x' };
const BAD_CHILD = { id: 'child', type: 'no-such-type' };

/** Values a field of each kind must accept and refuse (undefined: nothing to refuse). */
const PROBES: Record<FieldKind, { accepts: unknown[]; refuses?: unknown[] }> = {
  expression: { accepts: ['=input.x'], refuses: ['input.x', 3] },
  condition: { accepts: ['=iteration < 3'], refuses: ['true', true] },
  template: { accepts: ['Hello {{ input.name }}', '=input.name'], refuses: [3] },
  'template-record': { accepts: [{ a: 'x {{ input.y }}' }], refuses: [{ a: 3 }, 'x'] },
  args: { accepts: [{ a: '=input.x', b: 2 }], refuses: ['=input', [1]] },
  value: { accepts: ['=input', { a: '=input.x' }, [1, 2], 3] },
  duration: { accepts: ['5s', '24h'], refuses: ['soon', 5] },
  model: { accepts: ['mock:echo', 'openai:gpt-4o-mini'], refuses: ['gpt-4o'] },
  code: { accepts: ['return args;'], refuses: [3] },
  'json-schema': { accepts: [{ type: 'object' }], refuses: ['object'] },
  literal: { accepts: [] },
  steps: { accepts: [[], [CHILD]], refuses: [[BAD_CHILD], CHILD] },
  'named-steps': { accepts: [{ a: [CHILD], b: [] }], refuses: [{ a: [BAD_CHILD] }, [[CHILD]]] },
  cases: {
    accepts: [[{ when: '=true', steps: [CHILD] }]],
    refuses: [[{ when: 'true', steps: [] }], [{ when: '=true', steps: [BAD_CHILD] }]],
  },
};

const fieldsOf = (type: StepType) => Object.entries(manifestOf(type).fields as Record<string, FieldSpec>);

/** The type's palette defaults with empty child lists: the smallest valid step. */
function baseStep(type: StepType): Record<string, unknown> {
  const step: Record<string, unknown> = { id: 's', type, ...manifestOf(type).editor.defaults };
  for (const [field, spec] of fieldsOf(type)) {
    if (spec.kind === 'steps') step[field] ??= [];
    if (spec.kind === 'named-steps') step[field] ??= {};
    if (spec.kind === 'cases')
      step[field] = ((step[field] ?? []) as Record<string, unknown>[]).map((branchCase) => ({
        steps: [],
        ...branchCase,
      }));
  }
  return step;
}

const schemaOf = (type: StepType) => manifestOf(type).schema as unknown as { shape: Record<string, unknown> };

describe.each(STEP_TYPES.map((type) => [type]))('the %s manifest', (type) => {
  const manifest = manifestOf(type);

  it('is the registry entry for its type, with the schema the step union uses', () => {
    expect(manifest.type).toBe(type);
    expect(stepSchema.options).toContain(manifest.schema);
  });

  it('declares exactly the fields its schema has', () => {
    const schemaFields = Object.keys(schemaOf(type).shape).filter((key) => !BASE_KEYS.has(key));
    const declared = fieldsOf(type)
      .map(([field]) => field)
      .filter((field) => field !== 'timeout');
    expect(declared.sort()).toEqual(schemaFields.sort());
    // Only a redeclared `timeout` may shadow a common field, and only a real one.
    for (const [field] of fieldsOf(type)) if (BASE_KEYS.has(field)) expect(field).toBe('timeout');
  });

  it('gives a valid new step from its palette defaults', () => {
    expect(stepSchema.safeParse(baseStep(type)).error).toBeUndefined();
  });

  it.each(fieldsOf(type).map(([field, spec]) => [field, spec.kind]))('%s holds what a %s field holds', (field) => {
    const spec = manifest.fields[field as keyof typeof manifest.fields] as FieldSpec;
    const probe = PROBES[spec.kind];
    for (const value of probe.accepts) {
      expect(stepSchema.safeParse({ ...baseStep(type), [field]: value }).error, JSON.stringify(value)).toBeUndefined();
    }
    for (const value of probe.refuses ?? []) {
      expect(stepSchema.safeParse({ ...baseStep(type), [field]: value }).success, JSON.stringify(value)).toBe(false);
    }
  });

  it('says how its child lists run exactly when it has some, and the canvas draws it accordingly', () => {
    const lists = fieldsOf(type).filter(([, spec]) => STEP_LIST_KINDS.has(spec.kind));
    expect(manifest.childRuns !== undefined).toBe(lists.length > 0);
    const shape = { alternatives: 'fan-out', concurrent: 'fan-out', repeated: 'container' } as const;
    expect(manifest.editor.shape).toBe(manifest.childRuns === undefined ? 'node' : shape[manifest.childRuns]);
  });

  it('finds a child in every list field', () => {
    const step = baseStep(type);
    for (const [field, spec] of fieldsOf(type)) {
      if (spec.kind === 'steps') step[field] = [CHILD];
      if (spec.kind === 'named-steps') step[field] = { a: [CHILD] };
      if (spec.kind === 'cases') step[field] = [{ when: '=true', steps: [CHILD] }];
    }
    const parsed = stepSchema.parse(step) as Step;
    const listFields = fieldsOf(type).filter(([, spec]) => STEP_LIST_KINDS.has(spec.kind));
    const lists = childLists(parsed);
    expect(lists.map((list) => list.path[0]).sort()).toEqual(listFields.map(([field]) => field).sort());
    for (const list of lists) expect(list.steps).toEqual([CHILD]);
  });

  it('names body scope, conditions and positional fields that exist', () => {
    const declared = new Map(fieldsOf(type));
    if (manifest.body?.renamedBy !== undefined) expect(declared.get(manifest.body.renamedBy)?.kind).toBe('literal');
    // A body's names only make sense where a body is repeated; a condition reads them.
    if (manifest.body !== undefined) expect(manifest.childRuns).toBe('repeated');
    if ([...declared.values()].some((spec) => spec.kind === 'condition')) expect(manifest.body).toBeDefined();
    for (const field of manifest.positional ?? []) if (field !== undefined) expect(declared.has(field)).toBe(true);
  });
});

describe('the manifests together', () => {
  it('cover every step type, once', () => {
    expect(Object.keys(STEP_MANIFESTS).sort()).toEqual([...STEP_TYPES].sort());
    expect(stepSchema.options).toHaveLength(STEP_TYPES.length);
  });

  it('give every type a distinct label and icon', () => {
    const editors = STEP_TYPES.map((type) => manifestOf(type).editor);
    expect(new Set(editors.map((editor) => editor.label)).size).toBe(STEP_TYPES.length);
    expect(new Set(editors.map((editor) => editor.icon)).size).toBe(STEP_TYPES.length);
  });

  it('never give one step-list field name two kinds (raw documents are walked by name)', () => {
    const kinds = new Map<string, FieldKind>();
    for (const type of STEP_TYPES) {
      for (const [field, spec] of fieldsOf(type)) {
        if (!STEP_LIST_KINDS.has(spec.kind)) continue;
        expect(kinds.get(field) ?? spec.kind, field).toBe(spec.kind);
        kinds.set(field, spec.kind);
      }
    }
  });

  it('declare the retry policy field by field', () => {
    const retry = retrySchema as unknown as { shape: Record<string, unknown> };
    expect(Object.keys(RETRY_FIELDS).sort()).toEqual(Object.keys(retry.shape).sort());
    for (const [field, spec] of Object.entries(RETRY_FIELDS)) {
      if (spec.kind !== 'duration') continue;
      expect(retrySchema.safeParse({ maxAttempts: 2, [field]: '5s' }).success, field).toBe(true);
      expect(retrySchema.safeParse({ maxAttempts: 2, [field]: 'soon' }).success, field).toBe(false);
    }
  });

  it('keep expression kinds and step-list kinds apart', () => {
    for (const kind of EXPRESSION_KINDS) expect(STEP_LIST_KINDS.has(kind)).toBe(false);
  });
});
