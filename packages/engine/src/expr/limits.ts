/**
 * Resource limits and the per-evaluation allocation budget. Evaluation is synchronous and never
 * re-entrant, so the budget is module state reset at the start of each evaluation/render.
 */

/** Longest expression source accepted (characters). */
export const MAX_SOURCE_LENGTH = 10_000;
/**
 * Deepest nesting accepted (parentheses, unary operators, ternaries, calls, arrays, member
 * reads): it bounds the parser's and evaluator's recursion. A flat operator chain (`1+1+…`)
 * is one level however long: walkers follow it in a loop (ast.ts operatorChain).
 */
export const MAX_DEPTH = 100;
/** Longest string a helper, method or `+` may build. */
export const MAX_STRING_LENGTH = 1_000_000;
/** Longest array a helper or method may build. */
export const MAX_ARRAY_LENGTH = 100_000;
/** `range()` produces at most this many numbers. */
export const MAX_RANGE = 10_000;
/** `'x'.repeat(n)` may produce at most this many characters. */
export const MAX_REPEAT_LENGTH = 10_000;
/**
 * Everything helpers, methods and `+` build in one evaluation (or one template render), in
 * characters plus array elements; stops an expression from allocating gigabytes in 1 MB steps.
 */
export const EVALUATION_BUDGET = 16_000_000;

/** The limits above, for callers and docs. */
export const EXPR_LIMITS = {
  sourceLength: MAX_SOURCE_LENGTH,
  depth: MAX_DEPTH,
  stringLength: MAX_STRING_LENGTH,
  arrayLength: MAX_ARRAY_LENGTH,
  range: MAX_RANGE,
  repeatLength: MAX_REPEAT_LENGTH,
  evaluationBudget: EVALUATION_BUDGET,
} as const;

/**
 * Property names that are never readable, whatever the object: they lead to prototypes and
 * constructors. Rejected at parse time when static, at evaluation when computed.
 */
export const FORBIDDEN_PROPERTIES: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

/**
 * A failure inside a helper or method. Internal: the evaluator turns it into an
 * ExpressionError that carries the source and the position of the call.
 */
export class ExprFault extends Error {}

let remaining = EVALUATION_BUDGET;

export function resetBudget(): void {
  remaining = EVALUATION_BUDGET;
}

/** Takes `amount` from the budget; false when it is exhausted. */
export function tryCharge(amount: number): boolean {
  remaining -= amount;
  return remaining >= 0;
}

export const BUDGET_MESSAGE = `expression builds too much data (over ${EVALUATION_BUDGET} characters and array elements in one evaluation)`;

export function charge(amount: number): void {
  if (!tryCharge(amount)) throw new ExprFault(BUDGET_MESSAGE);
}

/** Checks and charges a string a helper built. */
export function builtString(value: string): string {
  if (value.length > MAX_STRING_LENGTH) {
    throw new ExprFault(`result is too long (${value.length} characters; the limit is ${MAX_STRING_LENGTH})`);
  }
  charge(value.length);
  return value;
}

/** Checks and charges an array a helper built. */
export function builtArray<T>(value: T[]): T[] {
  if (value.length > MAX_ARRAY_LENGTH) {
    throw new ExprFault(`result is too long (${value.length} elements; the limit is ${MAX_ARRAY_LENGTH})`);
  }
  charge(value.length);
  return value;
}
