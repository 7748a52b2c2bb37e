/**
 * Weft's expression language: a small, safe, deterministic subset of JavaScript expressions.
 * A config string starting with '=' is an expression; any other string may hold `{{ expr }}`
 * interpolations (a template). Runs inside Temporal's workflow sandbox: no Node API, no clock,
 * no randomness, no eval — a hand-written tokenizer, parser and tree-walking evaluator.
 *
 * The language
 * - Literals: numbers (`1`, `1.5e3`, `0x1f`), strings ('..' / ".." with JS escapes), true,
 *   false, null, arrays `[a, b]`, objects `{ a: 1, 'b c': x, input }`. No template literals.
 * - Names: `input`, `steps`, the item of each enclosing map (named by its `as`, default
 *   `item`) and `index` (inside map), `iteration` (inside loop), `args` (tool definitions),
 *   and helper functions (called). Globals and keywords never parse; any other name not in
 *   scope is a validation error (and an evaluation error).
 * - Members: `a.b`, `a[x]`, `a?.b`, `a?.[x]`. Own properties of objects/arrays only, plus
 *   `.length` and indices of strings. A missing property is undefined; reading through
 *   null/undefined without `?.` is an error naming the path. `__proto__`, `constructor`,
 *   `prototype`, `__defineGetter__`... are never readable.
 * - Operators: `! - + typeof`, `+ - * / % **`, `== != === !== < <= > >=`, `&& || ??`,
 *   `? :`, parentheses. `==` and `!=` are strict, exactly `===` and `!==` (so
 *   `null == undefined` is false: test a missing value with `x ?? d` or `typeof x`).
 *   Operators never coerce: arithmetic needs numbers, `<` needs two numbers or two strings,
 *   `+` adds numbers or joins a string with a string/number/boolean; anything else is an
 *   error rather than JavaScript's `NaN`/'[object Object]'. Whenever an expression yields a
 *   value, JavaScript yields the same value (printing `==` as `===`), so export stays faithful.
 * - Calls: the helpers in `EXPR_HELPERS` (len, keys, json, join, split, round, unique, range, pick,
 *   merge, default, ...) and whitelisted methods of strings (toUpperCase, slice, split,
 *   padStart, repeat, replaceAll, ...) and arrays (includes, join, slice, indexOf, at, concat).
 * - Not in the language: assignment, `new`, `this`, functions/arrows, comma, `in`,
 *   `instanceof`, regex, bitwise operators, spread, `import`.
 * - Limits: 10,000 characters of source, nesting depth 100 (a flat chain `a + b + …` is not
 *   nesting), strings built ≤ 1,000,000 characters, arrays built ≤ 100,000 elements, `range`
 *   ≤ 10,000, `repeat` ≤ 10,000 characters, and 16,000,000 characters+elements built per
 *   evaluation or template render.
 */
export type {
  ArrayNode,
  BinaryNode,
  BinaryOperator,
  CallNode,
  ChainNode,
  ConditionalNode,
  ExprNode,
  ExprRoot,
  IdentifierNode,
  IndexNode,
  LiteralNode,
  LogicalNode,
  LogicalOperator,
  MemberNode,
  MethodCallNode,
  ObjectNode,
  OperatorNode,
  PropertyNode,
  UnaryNode,
  UnaryOperator,
} from './ast.ts';
export { EXPR_ROOTS, operatorChain } from './ast.ts';
export { compileExpression } from './compile.ts';
export { HELPERS as EXPR_HELPERS, type Helper as ExprHelper } from './helpers.ts';
export { EXPR_LIMITS } from './limits.ts';
export { ARRAY_METHODS as EXPR_ARRAY_METHODS, STRING_METHODS as EXPR_STRING_METHODS } from './methods.ts';
export { bindableNameProblem, DEFAULT_ITEM_NAME, isVariableName } from './names.ts';
export { inspectValue, isExpression, isTemplate, resolveValue } from './resolve.ts';
export { compileTemplate } from './template.ts';
export type {
  CompiledExpression,
  CompiledTemplate,
  ExprScope,
  InspectIssue,
  InspectReport,
  StepRef,
} from './types.ts';
export { toJsonValue } from './values.ts';
