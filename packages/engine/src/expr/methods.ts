/**
 * The string and array methods an expression may call, by our own table: a method is never
 * looked up on a prototype. Each checks its arguments (no coercion) and the size of what it builds.
 */
import { int, num, optNum, optStr, str } from './args.ts';
import {
  builtArray,
  builtString,
  ExprFault,
  MAX_ARRAY_LENGTH,
  MAX_REPEAT_LENGTH,
  MAX_STRING_LENGTH,
} from './limits.ts';
import { joinValues } from './values.ts';

export interface Method<R> {
  min: number;
  max: number;
  fn: (receiver: R, args: unknown[]) => unknown;
}

const m = <R>(min: number, max: number, fn: (receiver: R, args: unknown[]) => unknown): Method<R> => ({ min, max, fn });

export const STRING_METHODS: ReadonlyMap<string, Method<string>> = new Map([
  ['toUpperCase', m<string>(0, 0, (s) => s.toUpperCase())],
  ['toLowerCase', m<string>(0, 0, (s) => s.toLowerCase())],
  ['trim', m<string>(0, 0, (s) => s.trim())],
  ['trimStart', m<string>(0, 0, (s) => s.trimStart())],
  ['trimEnd', m<string>(0, 0, (s) => s.trimEnd())],
  ['includes', m<string>(1, 2, (s, [x, at]) => s.includes(str(x, 0), optNum(at, 1)))],
  ['startsWith', m<string>(1, 2, (s, [x, at]) => s.startsWith(str(x, 0), optNum(at, 1)))],
  ['endsWith', m<string>(1, 2, (s, [x, at]) => s.endsWith(str(x, 0), optNum(at, 1)))],
  ['slice', m<string>(0, 2, (s, [a, b]) => s.slice(optNum(a, 0), optNum(b, 1)))],
  ['split', m<string>(0, 2, (s, [sep, limit]) => splitString(s, optStr(sep, 0), optNum(limit, 1)))],
  ['indexOf', m<string>(1, 2, (s, [x, at]) => s.indexOf(str(x, 0), optNum(at, 1)))],
  ['padStart', m<string>(1, 2, (s, [n, fill]) => pad(s, n, fill, true))],
  ['padEnd', m<string>(1, 2, (s, [n, fill]) => pad(s, n, fill, false))],
  ['repeat', m<string>(1, 1, (s, [n]) => repeat(s, n))],
  ['replaceAll', m<string>(2, 2, (s, [a, b]) => replaceAll(s, str(a, 0), str(b, 1), true))],
  ['at', m<string>(0, 1, (s, [i]) => s.at(optNum(i, 0) ?? 0))],
  ['charAt', m<string>(0, 1, (s, [i]) => s.charAt(optNum(i, 0) ?? 0))],
]);

export const ARRAY_METHODS: ReadonlyMap<string, Method<unknown[]>> = new Map([
  ['includes', m<unknown[]>(1, 2, (a, [x, at]) => a.includes(x, optNum(at, 1)))],
  ['join', m<unknown[]>(0, 1, (a, [sep]) => builtString(joinValues(a, optStr(sep, 0) ?? ',')))],
  ['slice', m<unknown[]>(0, 2, (a, [x, y]) => builtArray(a.slice(optNum(x, 0), optNum(y, 1))))],
  ['indexOf', m<unknown[]>(1, 2, (a, [x, at]) => a.indexOf(x, optNum(at, 1)))],
  ['at', m<unknown[]>(0, 1, (a, [i]) => a.at(optNum(i, 0) ?? 0))],
  ['concat', m<unknown[]>(0, Number.POSITIVE_INFINITY, (a, rest) => concatArrays(a, rest))],
]);

/** Every method name either table has, for the parser's early check. */
export const METHOD_NAMES: ReadonlySet<string> = new Set([...STRING_METHODS.keys(), ...ARRAY_METHODS.keys()]);

export function splitString(s: string, separator: string | undefined, limit?: number): string[] {
  if (separator === undefined) return builtArray([s]);
  const cap = limit === undefined ? MAX_ARRAY_LENGTH + 1 : Math.min(limit >>> 0, MAX_ARRAY_LENGTH + 1);
  return builtArray(s.split(separator, cap));
}

function pad(s: string, length: unknown, fill: unknown, start: boolean): string {
  const n = num(length, 0);
  if (n > MAX_STRING_LENGTH) throw new ExprFault(`cannot pad to ${n} characters (the limit is ${MAX_STRING_LENGTH})`);
  const f = optStr(fill, 1);
  return builtString(start ? s.padStart(n, f) : s.padEnd(n, f));
}

function repeat(s: string, count: unknown): string {
  const n = int(count, 0, 0, Number.MAX_SAFE_INTEGER);
  if (s.length * n > MAX_REPEAT_LENGTH) {
    throw new ExprFault(`would build ${s.length * n} characters (the limit is ${MAX_REPEAT_LENGTH})`);
  }
  return builtString(s.repeat(n));
}

/**
 * String.prototype.replaceAll with a string pattern, re-implemented so the result size is
 * checked as it grows. With `patterns`, the replacement's `$$ $& $\` $'` work as in JavaScript.
 */
export function replaceAll(s: string, pattern: string, replacement: string, patterns: boolean): string {
  const expand = patterns && replacement.includes('$');
  const step = Math.max(1, pattern.length);
  let out = '';
  let last = 0;
  for (let at = s.indexOf(pattern, 0); at !== -1; at = s.indexOf(pattern, at + step)) {
    out += s.slice(last, at);
    out += expand ? substitute(replacement, s, at, pattern) : replacement;
    last = at + pattern.length;
    if (out.length > MAX_STRING_LENGTH)
      throw new ExprFault(`result is too long (over ${MAX_STRING_LENGTH} characters)`);
    if (at >= s.length) break;
  }
  if (last < s.length) out += s.slice(last);
  return builtString(out);
}

/** GetSubstitution for a string pattern (no capture groups). */
function substitute(replacement: string, s: string, at: number, matched: string): string {
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i]!;
    const next = replacement[i + 1];
    if (c !== '$' || next === undefined) out += c;
    else if (next === '$') out += '$';
    else if (next === '&') out += matched;
    else if (next === '`') out += s.slice(0, at);
    else if (next === "'") out += s.slice(at + matched.length);
    else {
      out += c;
      continue;
    }
    if (c === '$') i++;
    if (out.length > MAX_STRING_LENGTH)
      throw new ExprFault(`result is too long (over ${MAX_STRING_LENGTH} characters)`);
  }
  return out;
}

export function concatArrays(first: unknown[], rest: unknown[]): unknown[] {
  let length = first.length;
  for (const r of rest) length += Array.isArray(r) ? r.length : 1;
  if (length > MAX_ARRAY_LENGTH)
    throw new ExprFault(`result is too long (${length} elements; the limit is ${MAX_ARRAY_LENGTH})`);
  const out = first.slice();
  for (const r of rest) {
    if (Array.isArray(r)) for (const v of r) out.push(v);
    else out.push(r);
  }
  return builtArray(out);
}
