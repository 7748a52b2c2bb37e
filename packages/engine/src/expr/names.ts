/**
 * The names an expression can read. Built in: `input`, `steps`, `index` (map), `iteration`
 * (loop) and `args` (tool definitions). A `map` binds its item to a name of the author's
 * choosing (`as`, default `item`), so any other identifier parses as a variable and is checked
 * against the names in scope by validation (and again when evaluated). Names that could only
 * ever mean a JavaScript global, a keyword or a prototype member are refused when parsed, so
 * they can never be bound either: that keeps exported TypeScript, where expressions are
 * written verbatim, from reading anything but Weft's own values.
 */
import { EXPR_ROOTS } from './ast.ts';
import { HELPERS } from './helpers.ts';
import { FORBIDDEN_PROPERTIES } from './limits.ts';

/** The name a map's current item has when the map does not say (`as`). */
export const DEFAULT_ITEM_NAME = 'item';

const RESERVED_WORDS: ReadonlySet<string> = new Set(
  'this new function class import export void delete await yield in instanceof let var const super async with debugger throw return if else for while do switch case try catch finally enum implements interface package private protected public static typeof true false null undefined'.split(
    ' ',
  ),
);

/** Globals of JavaScript hosts, and names the TypeScript export uses for its own values. */
const HOST_NAMES: ReadonlySet<string> = new Set(
  'globalThis global window self process require module exports eval Function Object Array String Number Boolean Symbol BigInt Math JSON Date RegExp Promise Proxy Reflect Error WeakMap WeakSet Map Set NaN Infinity console setTimeout setInterval fetch Buffer arguments step at helpers template ctx flow run context workflow activities inngest'.split(
    ' ',
  ),
);

/** Why `name` cannot be bound as a variable (a map's `as`), or undefined when it can. */
export function bindableNameProblem(name: string): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name)) return 'must be an identifier: letters, digits and _';
  if (name === DEFAULT_ITEM_NAME) return undefined;
  if ((EXPR_ROOTS as readonly string[]).includes(name)) return `'${name}' is a name expressions already read`;
  if (HELPERS.has(name)) return `'${name}' is a helper function`;
  if (RESERVED_WORDS.has(name) || HOST_NAMES.has(name) || FORBIDDEN_PROPERTIES.has(name)) {
    return `'${name}' is reserved by JavaScript or by the TypeScript export`;
  }
  return undefined;
}

/** True when an identifier may parse as a variable (whether it is in scope is checked later). */
export function isVariableName(name: string): boolean {
  return !RESERVED_WORDS.has(name) && !HOST_NAMES.has(name) && !FORBIDDEN_PROPERTIES.has(name) && !HELPERS.has(name);
}
