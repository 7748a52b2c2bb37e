/** Value utilities shared by the evaluator and the helpers. Pure; no Node API. */
import type { Json, JsonObject } from '../json.ts';
import { ExprFault, MAX_STRING_LENGTH } from './limits.ts';

export type PlainObject = Record<string, unknown>;

/** Non-null, non-array object: what a JSON object is. */
export function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short type name for messages: null, undefined, array, object, string, number, boolean. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Sets an own property, even `__proto__` (as data, never as the prototype). */
export function safeSet(target: PlainObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** JavaScript truthiness. */
export function truthy(value: unknown): boolean {
  return !!value;
}

/** Structural equality of JSON-like values (numbers by SameValueZero). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k) || !deepEqual((a as PlainObject)[k], (b as PlainObject)[k])) return false;
  }
  return true;
}

/** A string that is equal for deep-equal values (object keys sorted). */
export function valueKey(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `s${value}`;
    case 'number':
      return `n${String(value)}`;
    case 'boolean':
      return value ? 'T' : 'F';
    case 'undefined':
      return 'u';
    default:
      break;
  }
  if (value === null) return 'z';
  if (Array.isArray(value)) return `[${value.map(valueKey).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${valueKey(value[k])}`).join(',')}}`;
  }
  return 'x';
}

/** How a value appears in a template: strings as-is, null/undefined as '', objects as JSON. */
export function renderValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
      return String(value);
    case 'undefined':
      return '';
    case 'object':
      return value === null ? '' : JSON.stringify(toJsonValue(value));
    default:
      return '';
  }
}

/** Joins array elements like Array.prototype.join, but refuses objects instead of '[object Object]'. */
export function joinValues(values: readonly unknown[], separator: string): string {
  let out = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += separator;
    const v = values[i];
    if (typeof v === 'string') out += v;
    else if (typeof v === 'number' || typeof v === 'boolean') out += String(v);
    else if (Array.isArray(v)) out += joinValues(v, ',');
    else if (v !== null && v !== undefined)
      throw new ExprFault('cannot join objects; use json() to turn them into text');
    if (out.length > MAX_STRING_LENGTH) {
      throw new ExprFault(`result is too long (over ${MAX_STRING_LENGTH} characters)`);
    }
  }
  return out;
}

/** Converts any value to JSON, recursively: undefined and non-finite numbers become null. */
export function toJsonValue(value: unknown): Json {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) return value.map(toJsonValue);
      const out: JsonObject = {};
      for (const key of Object.keys(value)) safeSet(out, key, toJsonValue((value as PlainObject)[key]));
      return out;
    }
    default:
      return null;
  }
}
