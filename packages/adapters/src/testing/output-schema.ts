/**
 * Matching an output by JSON Schema, for outputs that may vary in their details (a model's
 * wording) while their shape must hold. The validator is the one the engine checks run inputs
 * with, @cfworker/json-schema (draft 2020-12, no code generation). A case's schema comes from
 * its file, which is the project's own (the API infers one and takes none from a caller).
 */
import { type OutputUnit, type Schema, Validator } from '@cfworker/json-schema';
import { isJsonObject, type Json, pointerSegments } from '@weft/engine';
import { formatJsonPath } from './diff-output.ts';

const DRAFT = '2020-12';

/** Keywords whose failure only says that something inside failed: the inner error says what. */
const WRAPPERS: ReadonlySet<string> = new Set([
  'properties',
  'items',
  'prefixItems',
  'additionalProperties',
  'patternProperties',
  '$ref',
  'allOf',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
]);

/** The first place `output` does not fit `schema`, as "output.a.b: why", or undefined. */
export function schemaMismatch(schema: Record<string, Json> | boolean, output: Json): string | undefined {
  let units: OutputUnit[];
  try {
    const result = new Validator(schema as Schema | boolean, DRAFT, false).validate(output);
    if (result.valid) return undefined;
    units = result.errors;
  } catch (error) {
    return `the case's expect.outputSchema cannot be used: ${(error as Error).message.split('\n')[0]?.trim()}`;
  }
  const specific = units.filter(
    (unit) => !WRAPPERS.has(unit.keyword) && !/\/(anyOf|oneOf)\/\d+\//.test(unit.keywordLocation),
  );
  const unit = specific[0] ?? units[0];
  if (!unit) return 'output: does not fit expect.outputSchema';
  const path = pathOf(unit.instanceLocation);
  if (unit.keyword === 'required') {
    const name = /required property "(.*)"/.exec(unit.error)?.[1];
    if (name !== undefined) return `${formatJsonPath(['output', ...path, name])}: is required by expect.outputSchema`;
  }
  return `${formatJsonPath(['output', ...path])}: ${unit.error} (expect.outputSchema at ${unit.keywordLocation})`;
}

/**
 * A schema describing a value's shape: its types, and for objects every key as required. What
 * `output-schema` checks when the user gives no schema: the same shape, any content; the file
 * is the place to loosen it (drop a key from `required`) or tighten it (an `enum`, a `pattern`).
 */
export function schemaOfValue(value: Json): Record<string, Json> {
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) {
    const items = value.map(schemaOfValue);
    const first = items[0];
    // One item schema when every item has the same shape; otherwise any items.
    const same = first !== undefined && items.every((item) => JSON.stringify(item) === JSON.stringify(first));
    return { type: 'array', ...(same ? { items: first } : {}) };
  }
  if (isJsonObject(value)) {
    const properties: Record<string, Json> = {};
    for (const [key, child] of Object.entries(value)) properties[key] = schemaOfValue(child);
    return { type: 'object', properties, required: Object.keys(value) };
  }
  if (typeof value === 'number') return { type: 'number' };
  return { type: typeof value as 'string' | 'boolean' };
}

/** `#/items/0/title` → ['items', 0, 'title']: the engine's JSON Pointer reading, with array indexes as numbers. */
function pathOf(pointer: string): (string | number)[] {
  return pointerSegments(pointer).map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}
