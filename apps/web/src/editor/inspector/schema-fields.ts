/**
 * Step schema → form fields. Walks the zod 4 schema of a step type (`stepSchema`'s option for
 * that `type`): unwraps optional/default, reads `def.type`, and picks a widget per field. Field
 * names decide the special widgets (expressions, the model picker, the code editor, ...), the
 * zod type decides the rest. Nested step lists (`steps`, `else`, `branches`) are drawn on the
 * canvas, not here; `id` and `type` are not config.
 */
import { type StepType, stepSchema } from '@weft/engine';

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
}

/** Minimal view of a zod 4 schema's internals. */
interface ZodLike {
  def: { type: string; innerType?: ZodLike; element?: ZodLike; valueType?: ZodLike; entries?: Record<string, string> };
  shape?: Record<string, ZodLike>;
  minValue?: number | null;
  maxValue?: number | null;
  _zod?: { bag?: { prefix?: string } };
}

const BODY_FIELDS = new Set(['id', 'type', 'steps', 'else', 'branches']);
const EXPRESSION_FIELDS = new Set(['prompt', 'system', 'url', 'message', 'items', 'while', 'messages']);
const MULTILINE_FIELDS = new Set(['prompt', 'system', 'message']);
const KEY_VALUE_FIELDS = new Set(['args', 'input', 'headers']);
const VALUE_FIELDS = new Set(['value', 'body']);
const DURATION_FIELDS = new Set(['timeout', 'duration', 'initialDelay', 'maxDelay']);

function unwrap(schema: ZodLike): { schema: ZodLike; optional: boolean } {
  let optional = false;
  let current = schema;
  for (let i = 0; i < 10; i++) {
    const type = current.def.type;
    if ((type === 'optional' || type === 'default' || type === 'nullable') && current.def.innerType) {
      optional = true;
      current = current.def.innerType;
    } else break;
  }
  return { schema: current, optional };
}

/** The zod object schema of one step type. */
export function stepObjectSchema(type: StepType): ZodLike {
  const option = (stepSchema.options as unknown as ZodLike[]).find((candidate) => {
    const literal = candidate.shape?.type as unknown as { value?: unknown } | undefined;
    return literal?.value === type;
  });
  if (!option) throw new Error(`no schema for step type ${type}`);
  return option;
}

/** A widget for one field of a schema. Exported for the retry sub-form and tests. */
export function fieldOf(name: string, raw: ZodLike, stepType?: StepType): FieldSpec {
  const { schema, optional } = unwrap(raw);
  const base = { name, required: !optional, advanced: false };
  const type = schema.def.type;
  if (name === 'retry') return { ...base, kind: 'retry', advanced: true };
  if (name === 'model' && type === 'string') return { ...base, kind: 'model' };
  if (name === 'source' && type === 'string') return { ...base, kind: 'code' };
  if (name === 'schema' && type === 'record') return { ...base, kind: 'json-schema' };
  if (name === 'cases' && type === 'array') return { ...base, kind: 'cases' };
  if (DURATION_FIELDS.has(name) && type === 'string')
    return { ...base, kind: 'duration', advanced: name === 'timeout' && stepType !== 'approval' };
  if (EXPRESSION_FIELDS.has(name) && type === 'string') {
    const exprOnly = schema._zod?.bag?.prefix === '=' || name === 'items' || name === 'while' || name === 'messages';
    return { ...base, kind: 'expression', exprOnly, multiline: MULTILINE_FIELDS.has(name) };
  }
  if (KEY_VALUE_FIELDS.has(name) && type === 'record') return { ...base, kind: 'key-value' };
  if (VALUE_FIELDS.has(name) && type === 'unknown') return { ...base, kind: 'value' };
  switch (type) {
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

/** The form fields of a step type, in schema order (advanced ones last). */
export function stepFields(type: StepType): FieldSpec[] {
  const shape = stepObjectSchema(type).shape ?? {};
  const fields: FieldSpec[] = [];
  for (const name of Object.keys(shape)) {
    if (BODY_FIELDS.has(name)) continue;
    fields.push(fieldOf(name, shape[name] as ZodLike, type));
  }
  return [...fields.filter((field) => !field.advanced), ...fields.filter((field) => field.advanced)];
}

/** The fields of `retry` (maxAttempts, backoff, initialDelay, maxDelay). */
export function retryFields(): FieldSpec[] {
  const retry = unwrap(stepObjectSchema('code').shape?.retry as ZodLike).schema;
  return Object.entries(retry.shape ?? {}).map(([name, schema]) => fieldOf(name, schema));
}
