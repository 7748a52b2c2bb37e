/**
 * Step manifest → form fields. Each field's widget comes from the kind its step manifest
 * declares (`@weft/engine`'s `stepFieldSpecs`): expressions, templates, durations, code, the
 * model picker. Only plain `literal` config (names, enums, numbers, lists of names) is read from
 * the zod schema, as is whether a field is required, a number's bounds and the value an absent
 * field means (its default). Nested step lists
 * are drawn on the canvas, not here; `id` and `type` are not config.
 */
import {
  type FieldSpec as DeclaredField,
  type Json,
  manifestOf,
  RETRY_FIELDS,
  type StepType,
  stepFieldSpecs,
} from '@weft/engine';

export type FieldKind =
  | 'text'
  | 'number'
  | 'checkbox'
  | 'select'
  | 'duration'
  /** A string that may be an `=expr` or a template with `{{ }}`. */
  | 'expression'
  /** An `=expr` or a JSON value whose strings are expressions (transform.value, http.body). */
  | 'value'
  | 'model'
  | 'code'
  | 'json-schema'
  /** A record whose values are expressions (args, input, headers). */
  | 'key-value'
  | 'string-list'
  /** branch.cases: a list of `when` expressions (each case's arm is an edge on the canvas). */
  | 'cases'
  | 'retry'
  /** Anything else: edited as JSON. */
  | 'json';

export interface FieldSpec {
  name: string;
  kind: FieldKind;
  required: boolean;
  /** Shown under "Advanced" (retry, timeout of a call). */
  advanced: boolean;
  /** For `select`. */
  options?: string[];
  /** For `number`. */
  min?: number;
  max?: number;
  /** For `expression`: the field must be a whole `=expr`. */
  exprOnly?: boolean;
  /** For `expression`: a multi-line text area. */
  multiline?: boolean;
  /** What the field means when absent: a `.default()` or a declared `meta({ default })`. */
  default?: Json;
}

/** Minimal view of a zod 4 schema's internals. */
interface ZodLike {
  def: {
    type: string;
    innerType?: ZodLike;
    element?: ZodLike;
    entries?: Record<string, string>;
    defaultValue?: unknown;
  };
  shape?: Record<string, ZodLike>;
  minValue?: number | null;
  maxValue?: number | null;
  /** The metadata registered for this schema (zod's global registry). */
  meta?(): { default?: unknown } | undefined;
}

function unwrap(schema: ZodLike): { schema: ZodLike; optional: boolean; default?: Json } {
  let optional = false;
  let current = schema;
  let fallback: unknown;
  for (let i = 0; i < 10; i++) {
    fallback ??= current.def.type === 'default' ? current.def.defaultValue : current.meta?.()?.default;
    const type = current.def.type;
    if ((type === 'optional' || type === 'default' || type === 'nullable') && current.def.innerType) {
      optional = true;
      current = current.def.innerType;
    } else break;
  }
  fallback ??= current.meta?.()?.default;
  return fallback === undefined
    ? { schema: current, optional }
    : { schema: current, optional, default: fallback as Json };
}

/** The zod object schema of one step type (its manifest's). */
function stepObjectSchema(type: StepType): ZodLike {
  return manifestOf(type).schema as unknown as ZodLike;
}

/**
 * A widget for one field: the kind its manifest declares, with the zod schema saying whether it
 * is required and, for plain literals, which input fits. Undefined for nested step lists.
 */
export function fieldOf(name: string, declared: DeclaredField, raw: ZodLike): FieldSpec | undefined {
  const { schema, optional, default: fallback } = unwrap(raw);
  const base = { name, required: !optional, advanced: false, ...(fallback === undefined ? {} : { default: fallback }) };
  switch (declared.kind) {
    case 'expression':
    case 'condition':
      return { ...base, kind: 'expression', exprOnly: true, multiline: false };
    case 'template':
      return { ...base, kind: 'expression', exprOnly: false, multiline: declared.multiline === true };
    case 'template-record':
    case 'args':
      return { ...base, kind: 'key-value' };
    case 'value':
      return { ...base, kind: 'value' };
    case 'duration':
      return { ...base, kind: 'duration' };
    case 'model':
      return { ...base, kind: 'model' };
    case 'code':
      return { ...base, kind: 'code' };
    case 'json-schema':
      return { ...base, kind: 'json-schema' };
    case 'cases':
      return { ...base, kind: 'cases' };
    case 'steps':
    case 'named-steps':
      return undefined;
    case 'literal':
      return literalField(base, schema);
  }
}

/** Plain config: the input its zod type calls for. */
function literalField(base: Omit<FieldSpec, 'kind'>, schema: ZodLike): FieldSpec {
  switch (schema.def.type) {
    case 'string':
      return { ...base, kind: 'text' };
    case 'number': {
      const spec: FieldSpec = { ...base, kind: 'number' };
      // z.int() carries the safe-integer range as its bounds: only real limits are shown.
      const { minValue, maxValue } = schema;
      if (typeof minValue === 'number' && Math.abs(minValue) < 1e15) spec.min = minValue;
      if (typeof maxValue === 'number' && Math.abs(maxValue) < 1e15) spec.max = maxValue;
      return spec;
    }
    case 'boolean':
      return { ...base, kind: 'checkbox' };
    case 'enum':
      return { ...base, kind: 'select', options: Object.values(schema.def.entries ?? {}) };
    case 'array':
      if (schema.def.element && unwrap(schema.def.element).schema.def.type === 'string')
        return { ...base, kind: 'string-list' };
      return { ...base, kind: 'json' };
    default:
      return { ...base, kind: 'json' };
  }
}

/**
 * The form fields of a step type in its manifest's order, advanced ones last: the common
 * `retry`, and the common call `timeout` (a type's own `timeout`, the approval's wait, is not).
 */
export function stepFields(type: StepType): FieldSpec[] {
  const shape = stepObjectSchema(type).shape ?? {};
  const fields: FieldSpec[] = [];
  for (const { name, spec: declared, common } of stepFieldSpecs(type)) {
    const raw = shape[name];
    if (raw === undefined) continue;
    if (common && name === 'retry') {
      fields.push({ name, kind: 'retry', required: !unwrap(raw).optional, advanced: true });
      continue;
    }
    const field = fieldOf(name, declared, raw);
    if (field) fields.push({ ...field, advanced: common && name === 'timeout' });
  }
  return [...fields.filter((field) => !field.advanced), ...fields.filter((field) => field.advanced)];
}

/** The fields of `retry` (maxAttempts, backoff, initialDelay, maxDelay). */
export function retryFields(): FieldSpec[] {
  const retry = unwrap(stepObjectSchema('code').shape?.retry as ZodLike).schema;
  const shape = retry.shape ?? {};
  return Object.entries(RETRY_FIELDS).flatMap(([name, declared]) => {
    const field = shape[name] === undefined ? undefined : fieldOf(name, declared, shape[name]);
    return field ? [field] : [];
  });
}
