/**
 * Checks a run's input against the flow's `input` JSON Schema before anything runs, so a bad
 * input is a clear error naming the field, not a confusing failure three steps in. A small,
 * dependency-free subset of JSON Schema (type, properties, required, additionalProperties,
 * items, enum, const, min/max length/items/value, anyOf); keywords it does not know are
 * ignored rather than guessed at. `pattern` is ignored on purpose: a user-supplied regex is a
 * denial-of-service risk on the server.
 */
import { isJsonObject, type Json } from '../json.ts';

export interface InputIssue {
  /** Where in the input, e.g. "input.customer.email". */
  path: string;
  message: string;
}

const MAX_ISSUES = 50;

export function checkInput(schema: Record<string, unknown> | undefined, input: Json): InputIssue[] {
  const issues: InputIssue[] = [];
  if (schema) check(schema, input, 'input', issues);
  return issues.slice(0, MAX_ISSUES);
}

function check(schema: Record<string, unknown>, value: Json | undefined, path: string, issues: InputIssue[]): void {
  if (issues.length >= MAX_ISSUES) return;
  const fail = (message: string) => issues.push({ path, message });
  if (Array.isArray(schema.anyOf)) {
    const options = schema.anyOf.filter(isJsonObject);
    if (!options.some((option) => matches(option, value, path))) {
      fail('matches none of the allowed shapes (anyOf)');
    }
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type.map(String) : [String(schema.type)];
    if (!types.some((type) => hasType(value, type))) {
      fail(`must be ${types.join(' or ')}, got ${describe(value)}`);
      return;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => same(option as Json, value))) {
    fail(`must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(', ')}`);
  }
  if ('const' in schema && !same(schema.const as Json, value)) fail(`must be ${JSON.stringify(schema.const)}`);
  if (typeof value === 'string') checkString(schema, value, fail);
  if (typeof value === 'number') checkNumber(schema, value, fail);
  if (Array.isArray(value)) checkArray(schema, value, path, issues);
  if (isJsonObject(value)) checkObject(schema, value, path, issues);
}

function matches(schema: Record<string, unknown>, value: Json | undefined, path: string): boolean {
  const issues: InputIssue[] = [];
  check(schema, value, path, issues);
  return issues.length === 0;
}

function checkString(schema: Record<string, unknown>, value: string, fail: (message: string) => void): void {
  if (typeof schema.minLength === 'number' && value.length < schema.minLength)
    fail(`must be at least ${schema.minLength} characters`);
  if (typeof schema.maxLength === 'number' && value.length > schema.maxLength)
    fail(`must be at most ${schema.maxLength} characters`);
}

function checkNumber(schema: Record<string, unknown>, value: number, fail: (message: string) => void): void {
  if (typeof schema.minimum === 'number' && value < schema.minimum) fail(`must be ≥ ${schema.minimum}`);
  if (typeof schema.maximum === 'number' && value > schema.maximum) fail(`must be ≤ ${schema.maximum}`);
}

function checkArray(schema: Record<string, unknown>, value: Json[], path: string, issues: InputIssue[]): void {
  if (typeof schema.minItems === 'number' && value.length < schema.minItems)
    issues.push({ path, message: `must have at least ${schema.minItems} items` });
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
    issues.push({ path, message: `must have at most ${schema.maxItems} items` });
  if (isJsonObject(schema.items as Json)) {
    const items = schema.items as Record<string, unknown>;
    value.forEach((item, index) => {
      check(items, item, `${path}[${index}]`, issues);
    });
  }
}

function checkObject(
  schema: Record<string, unknown>,
  value: Record<string, Json>,
  path: string,
  issues: InputIssue[],
): void {
  const properties = isJsonObject(schema.properties as Json)
    ? (schema.properties as Record<string, Record<string, unknown>>)
    : {};
  if (Array.isArray(schema.required)) {
    for (const name of schema.required.map(String)) {
      if (!Object.hasOwn(value, name)) issues.push({ path: childPath(path, name), message: 'is required' });
    }
  }
  for (const [name, child] of Object.entries(value)) {
    const propertySchema = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (propertySchema && isJsonObject(propertySchema as Json))
      check(propertySchema, child, childPath(path, name), issues);
    else if (schema.additionalProperties === false)
      issues.push({ path: childPath(path, name), message: 'is not an allowed field' });
    else if (isJsonObject(schema.additionalProperties as Json))
      check(schema.additionalProperties as Record<string, unknown>, child, childPath(path, name), issues);
  }
}

function hasType(value: Json | undefined, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isJsonObject(value ?? null);
    default:
      return true;
  }
}

function describe(value: Json | undefined): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value).slice(0, 40)}`;
}

function same(a: Json, b: Json | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function childPath(path: string, name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;
}
