/**
 * What TS export needs to keep the expression language's behaviour in plain TypeScript:
 *
 * - `template\`Hi ${x}\``: renders like a `{{ }}` template (null/undefined as '', objects as
 *   JSON), where a bare template literal would print "null" or "[object Object]".
 * - `eq(a, b)` / `ne(a, b)`: the IR's `==`/`!=` — strict, except that null equals a missing
 *   value. (Against a literal the exporter writes `===` or `== null` instead: the same thing.)
 * - `helpers`: the expression helpers (`len`, `json`, `round`, …) with the IR's argument checks.
 */
import { HELPERS } from '../expr/helpers.ts';
import { resetBudget } from '../expr/limits.ts';
import { renderValue } from '../expr/values.ts';

export function template(strings: TemplateStringsArray, ...values: unknown[]): string {
  // As in an IR template, `\{{` is a literal `{{` (so the text can say `{{` and import back).
  const text = (index: number) => (strings[index] ?? '').replaceAll('\\{{', '{{');
  let out = text(0);
  values.forEach((value, index) => {
    out += renderValue(value) + text(index + 1);
  });
  return out;
}

export function eq(a: unknown, b: unknown): boolean {
  return a === b || (a == null && b == null);
}

export function ne(a: unknown, b: unknown): boolean {
  return !eq(a, b);
}

// biome-ignore lint/suspicious/noExplicitAny: helpers take and return any JSON; flows read into the result.
type HelperFunction = (...args: any[]) => any;

/** The helpers' names, spelled out so each is a typed property (a test checks it matches HELPERS). */
export const HELPER_NAMES = [
  'len',
  'keys',
  'values',
  'entries',
  'lower',
  'upper',
  'trim',
  'json',
  'parseJson',
  'join',
  'split',
  'includes',
  'startsWith',
  'endsWith',
  'replace',
  'slice',
  'concat',
  'first',
  'last',
  'round',
  'floor',
  'ceil',
  'abs',
  'min',
  'max',
  'sum',
  'avg',
  'number',
  'string',
  'boolean',
  'isArray',
  'isObject',
  'isString',
  'isNumber',
  'isBoolean',
  'coalesce',
  'default',
  'contains',
  'unique',
  'flatten',
  'range',
  'pick',
  'omit',
  'merge',
] as const;
export type HelperName = (typeof HELPER_NAMES)[number];

/** Every expression helper by name, callable from TypeScript: `helpers.len(x)`. */
export const helpers: { readonly [name in HelperName]: HelperFunction } = Object.freeze(
  Object.fromEntries(
    [...HELPERS].map(([name, helper]): [string, HelperFunction] => {
      const call = (...args: unknown[]) => {
        if (args.length < helper.min || args.length > helper.max)
          throw new TypeError(`${name}() takes ${helper.signature}, got ${args.length} arguments`);
        // Each call is its own evaluation: the size budget must not accumulate over a run.
        resetBudget();
        return helper.fn(args);
      };
      return [name, call];
    }),
  ),
) as { readonly [name in HelperName]: HelperFunction };
