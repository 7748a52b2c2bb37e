/**
 * Operators and property reads. Where JavaScript would coerce (`'a' - 1`, `{} + 1`, `null < 1`)
 * these throw instead, so a value an expression produces is the value JavaScript would produce.
 * `==`/`!=` are strict (`===`/`!==`): no coercion, so `1 == '1'` and `null == undefined` are false.
 */
import { ExpressionError } from '../errors.ts';
import type { BinaryNode, UnaryNode } from './ast.ts';
import { BUDGET_MESSAGE, FORBIDDEN_PROPERTIES, MAX_STRING_LENGTH, tryCharge } from './limits.ts';
import { describe } from './values.ts';

/** Reads an own property (or a string's length / character). `key` is already checked. */
export function readProperty(target: unknown, key: string): unknown {
  if (typeof target === 'object' && target !== null) {
    return Object.hasOwn(target, key) ? (target as Record<string, unknown>)[key] : undefined;
  }
  if (typeof target === 'string') {
    if (key === 'length') return target.length;
    const n = Number(key);
    return Number.isInteger(n) && n >= 0 && n < target.length && String(n) === key ? target[n] : undefined;
  }
  return undefined;
}

/** `target[key]` for a computed key: numbers index arrays and strings, strings are checked. */
export function readIndex(target: unknown, key: unknown, src: string, at: number): unknown {
  if (typeof key === 'number') {
    if (Array.isArray(target) || typeof target === 'string') {
      return Number.isInteger(key) && key >= 0 && key < target.length ? target[key] : undefined;
    }
    return readProperty(target, String(key));
  }
  if (typeof key === 'string') {
    if (FORBIDDEN_PROPERTIES.has(key)) throw new ExpressionError(`property '${key}' is not allowed`, src, at);
    return readProperty(target, key);
  }
  throw new ExpressionError(`a property key must be a string or a number, got ${describe(key)}`, src, at);
}

export function unary(node: UnaryNode, value: unknown, src: string): unknown {
  switch (node.operator) {
    case '!':
      return !value;
    case 'typeof':
      return typeof value;
    case '-':
      if (typeof value === 'number') return -value;
      break;
    case '+':
      if (typeof value === 'number') return value;
      break;
  }
  throw new ExpressionError(
    `cannot apply unary '${node.operator}' to ${describe(value)}${typeof value === 'string' ? '; use number()' : ''}`,
    src,
    node.start,
  );
}

export function binary(node: BinaryNode, l: unknown, r: unknown, src: string): unknown {
  const op = node.operator;
  if (typeof l === 'number' && typeof r === 'number') {
    switch (op) {
      case '+':
        return l + r;
      case '-':
        return l - r;
      case '*':
        return l * r;
      case '/':
        return l / r;
      case '%':
        return l % r;
      case '**':
        return l ** r;
      case '<':
        return l < r;
      case '<=':
        return l <= r;
      case '>':
        return l > r;
      case '>=':
        return l >= r;
      default:
        break;
    }
  }
  switch (op) {
    // `==`/`!=` are strict except that null and a missing value are equal, so `x == null`
    // means what authors expect; no other coercion (`1 == '1'` is false).
    case '==':
      return l === r || (l == null && r == null);
    case '===':
      return l === r;
    case '!=':
      return !(l === r || (l == null && r == null));
    case '!==':
      return l !== r;
    case '+':
      if (typeof l === 'string' || typeof r === 'string') return concat(node, l, r, src);
      break;
    case '<':
    case '<=':
    case '>':
    case '>=':
      if (typeof l === 'string' && typeof r === 'string') {
        return op === '<' ? l < r : op === '<=' ? l <= r : op === '>' ? l > r : l >= r;
      }
      break;
    default:
      break;
  }
  throw new ExpressionError(`cannot apply '${op}' to ${describe(l)} and ${describe(r)}`, src, node.start);
}

function concat(node: BinaryNode, l: unknown, r: unknown, src: string): string {
  if (!isTextual(l) || !isTextual(r)) {
    throw new ExpressionError(
      `cannot apply '+' to ${describe(l)} and ${describe(r)}${l == null || r == null ? " (use ?? '' for a missing value)" : '; use json() for objects'}`,
      src,
      node.start,
    );
  }
  const out = String(l) + String(r);
  if (out.length > MAX_STRING_LENGTH) {
    throw new ExpressionError(
      `string is too long (${out.length} characters; the limit is ${MAX_STRING_LENGTH})`,
      src,
      node.start,
    );
  }
  if (!tryCharge(out.length)) throw new ExpressionError(BUDGET_MESSAGE, src, node.start);
  return out;
}

function isTextual(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}
