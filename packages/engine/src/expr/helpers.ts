/**
 * The whitelisted helper functions, callable by name: `len(steps.a.output.items)`. All pure and
 * deterministic (no clock, no randomness); they check their arguments instead of coercing, and
 * what they build counts against the size limits.
 */
import { arr, int, num, obj, optNum, optStr, show, str } from './args.ts';
import { builtArray, builtString, charge, ExprFault, MAX_ARRAY_LENGTH, MAX_RANGE } from './limits.ts';
import { concatArrays, replaceAll, splitString } from './methods.ts';
import {
  deepEqual,
  describe,
  isPlainObject,
  joinValues,
  type PlainObject,
  renderValue,
  safeSet,
  toJsonValue,
  valueKey,
} from './values.ts';

export interface Helper {
  min: number;
  max: number;
  /** How it is called, for messages and editor completion. */
  signature: string;
  fn: (args: unknown[]) => unknown;
}

const ANY = Number.POSITIVE_INFINITY;

const table: [string, number, number, string, Helper['fn']][] = [
  ['len', 1, 1, 'len(stringOrArrayOrObject)', ([x]) => len(x)],
  ['keys', 1, 1, 'keys(object)', ([o]) => builtArray(Object.keys(obj(o, 0)))],
  ['values', 1, 1, 'values(object)', ([o]) => builtArray(Object.values(obj(o, 0)))],
  ['entries', 1, 1, 'entries(object)', ([o]) => builtArray(Object.entries(obj(o, 0)))],
  ['lower', 1, 1, 'lower(string)', ([s]) => str(s, 0).toLowerCase()],
  ['upper', 1, 1, 'upper(string)', ([s]) => str(s, 0).toUpperCase()],
  ['trim', 1, 1, 'trim(string)', ([s]) => str(s, 0).trim()],
  ['json', 1, 2, 'json(value, indent?)', ([v, indent]) => json(v, indent)],
  ['parseJson', 1, 1, 'parseJson(string)', ([s]) => parseJson(str(s, 0))],
  ['join', 1, 2, 'join(array, separator?)', ([a, sep]) => builtString(joinValues(arr(a, 0), optStr(sep, 1) ?? ','))],
  ['split', 2, 2, 'split(string, separator)', ([s, sep]) => splitString(str(s, 0), str(sep, 1))],
  ['includes', 2, 2, 'includes(stringOrArray, value)', ([c, x]) => includes(c, x)],
  ['startsWith', 2, 2, 'startsWith(string, prefix)', ([s, x]) => str(s, 0).startsWith(str(x, 1))],
  ['endsWith', 2, 2, 'endsWith(string, suffix)', ([s, x]) => str(s, 0).endsWith(str(x, 1))],
  [
    'replace',
    3,
    3,
    'replace(string, search, replacement)',
    ([s, a, b]) => replaceAll(str(s, 0), str(a, 1), str(b, 2), false),
  ],
  ['slice', 2, 3, 'slice(stringOrArray, start, end?)', ([x, a, b]) => slice(x, num(a, 1), optNum(b, 2))],
  ['concat', 1, ANY, 'concat(a, b, ...)', (args) => concat(args)],
  ['first', 1, 1, 'first(arrayOrString)', ([x]) => (x == null ? undefined : sequence(x).at(0))],
  ['last', 1, 1, 'last(arrayOrString)', ([x]) => (x == null ? undefined : sequence(x).at(-1))],
  ['round', 1, 2, 'round(number, digits?)', ([x, d]) => round(num(x, 0), d === undefined ? 0 : int(d, 1, 0, 15))],
  ['floor', 1, 1, 'floor(number)', ([x]) => Math.floor(num(x, 0))],
  ['ceil', 1, 1, 'ceil(number)', ([x]) => Math.ceil(num(x, 0))],
  ['abs', 1, 1, 'abs(number)', ([x]) => Math.abs(num(x, 0))],
  ['min', 1, ANY, 'min(numbers...) or min(array)', (args) => extreme(args, -1)],
  ['max', 1, ANY, 'max(numbers...) or max(array)', (args) => extreme(args, 1)],
  ['sum', 1, 1, 'sum(array)', ([a]) => numbers(arr(a, 0)).reduce((t, n) => t + n, 0)],
  ['avg', 1, 1, 'avg(array)', ([a]) => average(numbers(arr(a, 0)))],
  ['number', 1, 2, 'number(value, fallback?)', (args) => toNumber(args)],
  ['string', 1, 1, 'string(value)', ([v]) => builtString(renderValue(v))],
  ['boolean', 1, 1, 'boolean(value)', ([v]) => !!v],
  ['isArray', 1, 1, 'isArray(value)', ([v]) => Array.isArray(v)],
  ['isObject', 1, 1, 'isObject(value)', ([v]) => isPlainObject(v)],
  ['isString', 1, 1, 'isString(value)', ([v]) => typeof v === 'string'],
  ['isNumber', 1, 1, 'isNumber(value)', ([v]) => typeof v === 'number' && !Number.isNaN(v)],
  ['isBoolean', 1, 1, 'isBoolean(value)', ([v]) => typeof v === 'boolean'],
  ['coalesce', 1, ANY, 'coalesce(a, b, ...)', (args) => args.find((v) => v !== null && v !== undefined)],
  ['default', 2, 2, 'default(value, fallback)', ([v, d]) => v ?? d],
  ['contains', 2, 2, 'contains(stringOrArrayOrObject, value)', ([c, x]) => contains(c, x)],
  ['unique', 1, 1, 'unique(array)', ([a]) => unique(arr(a, 0))],
  ['flatten', 1, 2, 'flatten(array, depth?)', ([a, d]) => flatten(arr(a, 0), d === undefined ? 1 : int(d, 1, 0, 100))],
  ['range', 1, 3, 'range(end) or range(start, end, step?)', (args) => range(args)],
  ['pick', 2, ANY, 'pick(object, keys)', ([o, ...k]) => pick(o, keyList(k), true)],
  ['omit', 2, ANY, 'omit(object, keys)', ([o, ...k]) => pick(o, keyList(k), false)],
  ['merge', 1, ANY, 'merge(a, b, ...)', (args) => merge(args)],
];

export const HELPERS: ReadonlyMap<string, Helper> = new Map(
  table.map(([name, min, max, signature, fn]) => [name, { min, max, signature, fn }]),
);

function len(x: unknown): number {
  if (typeof x === 'string' || Array.isArray(x)) return x.length;
  if (x === null || x === undefined) return 0;
  if (isPlainObject(x)) return Object.keys(x).length;
  throw new ExprFault(`first argument must be a string, array or object, got ${describe(x)}`);
}

function sequence(x: unknown): string | unknown[] {
  if (typeof x === 'string' || Array.isArray(x)) return x;
  throw new ExprFault(`first argument must be a string or an array, got ${describe(x)}`);
}

function json(value: unknown, indent: unknown): string {
  const space = indent === undefined ? undefined : int(indent, 1, 0, 10);
  return builtString(JSON.stringify(toJsonValue(value), null, space));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ExprFault(`invalid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function includes(collection: unknown, value: unknown): boolean {
  if (typeof collection === 'string') return collection.includes(str(value, 1));
  if (Array.isArray(collection)) return collection.includes(value);
  throw new ExprFault(`first argument must be a string or an array, got ${describe(collection)}`);
}

function contains(collection: unknown, value: unknown): boolean {
  if (collection === null || collection === undefined) return false;
  if (typeof collection === 'string') return collection.includes(str(value, 1));
  if (Array.isArray(collection)) return collection.some((v) => deepEqual(v, value));
  if (isPlainObject(collection)) return Object.hasOwn(collection, str(value, 1));
  throw new ExprFault(`first argument must be a string, array or object, got ${describe(collection)}`);
}

function slice(x: unknown, start: number, end: number | undefined): unknown {
  if (typeof x === 'string') return x.slice(start, end);
  if (Array.isArray(x)) return builtArray(x.slice(start, end));
  throw new ExprFault(`first argument must be a string or an array, got ${describe(x)}`);
}

function concat(args: unknown[]): unknown {
  const [first, ...rest] = args;
  if (Array.isArray(first)) return concatArrays(first, rest);
  let out = '';
  args.forEach((v, i) => {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out += String(v);
    else throw new ExprFault(`${show(v)} (argument ${i + 1}) cannot be concatenated to a string`);
  });
  return builtString(out);
}

function round(x: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(x * factor) / factor;
}

function numbers(values: unknown[]): number[] {
  for (const v of values) {
    if (typeof v !== 'number') throw new ExprFault(`expected only numbers, got ${describe(v)}`);
  }
  return values as number[];
}

function extreme(args: unknown[], sign: 1 | -1): number | undefined {
  const values = numbers(args.length === 1 && Array.isArray(args[0]) ? args[0] : args);
  let best: number | undefined;
  for (const v of values) if (best === undefined || (v - best) * sign > 0 || Number.isNaN(v)) best = v;
  return best;
}

function average(values: number[]): number | undefined {
  return values.length === 0 ? undefined : values.reduce((t, n) => t + n, 0) / values.length;
}

function toNumber(args: unknown[]): unknown {
  const [v] = args;
  let n = Number.NaN;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'boolean') n = v ? 1 : 0;
  else if (typeof v === 'string' && v.trim() !== '') n = Number(v);
  if (Number.isFinite(n)) return n;
  if (args.length > 1) return args[1];
  throw new ExprFault(`cannot convert ${show(v)} to a number (give a fallback: number(x, 0))`);
}

function unique(values: unknown[]): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const v of values) {
    const key = valueKey(v);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(v);
    }
  }
  return builtArray(out);
}

function flatten(values: unknown[], depth: number): unknown[] {
  const out: unknown[] = [];
  const visit = (list: unknown[], level: number): void => {
    for (const v of list) {
      if (Array.isArray(v) && level < depth) visit(v, level + 1);
      else if (out.push(v) > MAX_ARRAY_LENGTH) {
        throw new ExprFault(`result is too long (over ${MAX_ARRAY_LENGTH} elements)`);
      }
    }
  };
  visit(values, 0);
  return builtArray(out);
}

function range(args: unknown[]): number[] {
  const [a, b, c] = args;
  const start = args.length === 1 ? 0 : num(a, 0);
  const end = args.length === 1 ? num(a, 0) : num(b, 1);
  const step = c === undefined ? 1 : num(c, 2);
  if (step === 0 || !Number.isFinite(step)) throw new ExprFault('step must be a non-zero number');
  const count = Math.max(0, Math.ceil((end - start) / step));
  if (!(count <= MAX_RANGE)) throw new ExprFault(`at most ${MAX_RANGE} numbers (asked for ${count})`);
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(start + i * step);
  return builtArray(out);
}

function keyList(rest: unknown[]): string[] {
  const list = rest.length === 1 && Array.isArray(rest[0]) ? rest[0] : rest;
  return list.map((k, i) => str(k, i + 1));
}

function pick(o: unknown, keys: string[], keep: boolean): PlainObject {
  const source = o === null || o === undefined ? {} : obj(o, 0);
  const wanted = new Set(keys);
  const out: PlainObject = {};
  for (const key of Object.keys(source)) if (wanted.has(key) === keep) safeSet(out, key, source[key]);
  return out;
}

function merge(args: unknown[]): PlainObject {
  const out: PlainObject = {};
  args.forEach((o, i) => {
    if (o === null || o === undefined) return;
    const source = obj(o, i);
    for (const key of Object.keys(source)) safeSet(out, key, source[key]);
  });
  charge(Object.keys(out).length);
  return out;
}
