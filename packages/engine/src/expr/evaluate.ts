/**
 * The tree-walking evaluator. Hot paths (identifiers, member reads, operators) allocate nothing
 * and never catch; only helper/method calls are wrapped, to give their failures a position.
 */
import { ExpressionError } from '../errors.ts';
import { type CallNode, type ExprNode, type MethodCallNode, type OperatorNode, operatorChain } from './ast.ts';
import { HELPERS } from './helpers.ts';
import { ExprFault } from './limits.ts';
import { ARRAY_METHODS, type Method, STRING_METHODS } from './methods.ts';
import { binary, readIndex, readProperty, unary } from './ops.ts';
import type { ExprScope } from './types.ts';
import { describe } from './values.ts';

/** What a short-circuited optional chain yields until its Chain node turns it into undefined. */
const SHORT: unique symbol = Symbol('short-circuit');

export function evaluateNode(node: ExprNode, scope: ExprScope, src: string): unknown {
  switch (node.type) {
    case 'Member': {
      const target = evaluateNode(node.object, scope, src);
      if (target === null || target === undefined) {
        if (node.optional) return SHORT;
        throw new ExpressionError(
          `cannot read '${node.property}' of ${String(target)} (${pathOf(node.object, src)})`,
          src,
          node.end - node.property.length,
        );
      }
      if (target === SHORT) return SHORT;
      return readProperty(target, node.property);
    }
    case 'Identifier':
      switch (node.name) {
        case 'steps':
          return scope.steps;
        case 'input':
          return scope.input;
        case 'index':
          return scope.index;
        case 'iteration':
          return scope.iteration;
        case 'args':
          return scope.args;
        default:
          return readVariable(scope, node.name, src, node.start);
      }
    case 'Literal':
      return node.value;
    case 'Index': {
      const target = evaluateNode(node.object, scope, src);
      if (target === null || target === undefined) {
        if (node.optional) return SHORT;
        const key = evaluateNode(node.index, scope, src);
        throw new ExpressionError(
          `cannot read ${typeof key === 'string' ? `'${key}'` : String(key)} of ${String(target)} (${pathOf(node.object, src)})`,
          src,
          node.start,
        );
      }
      if (target === SHORT) return SHORT;
      return readIndex(target, evaluateNode(node.index, scope, src), src, node.index.start);
    }
    case 'Chain': {
      const value = evaluateNode(node.expression, scope, src);
      return value === SHORT ? undefined : value;
    }
    case 'Binary':
    case 'Logical':
      return evaluateChain(node, scope, src);
    case 'Unary':
      return unary(node, evaluateNode(node.argument, scope, src), src);
    case 'Conditional':
      return evaluateNode(node.test, scope, src)
        ? evaluateNode(node.consequent, scope, src)
        : evaluateNode(node.alternate, scope, src);
    case 'Call':
      return callHelper(node, scope, src);
    case 'MethodCall':
      return callMethod(node, scope, src);
    case 'Array': {
      const out: unknown[] = [];
      for (const element of node.elements) out.push(evaluateNode(element, scope, src));
      return out;
    }
    case 'Object': {
      // Keys are static and checked by the parser (never `__proto__`), so plain assignment is safe.
      const out: Record<string, unknown> = {};
      for (const p of node.properties) out[p.key] = evaluateNode(p.value, scope, src);
      return out;
    }
  }
  throw new ExpressionError('unsupported expression', src, (node as ExprNode).start);
}

/**
 * An operator chain, left to right in a loop (a flat `1+1+…` of thousands of terms would
 * overflow the stack if each operator recursed into its left side). Each operator sees only
 * the value so far, so `&&`, `||` and `??` short-circuit exactly as nested they would.
 */
function evaluateChain(node: OperatorNode, scope: ExprScope, src: string): unknown {
  const { first, operators } = operatorChain(node);
  let value = evaluateNode(first, scope, src);
  for (const op of operators) {
    if (op.type === 'Binary') {
      value = binary(op, value, evaluateNode(op.right, scope, src), src);
      continue;
    }
    switch (op.operator) {
      case '&&':
        if (value) value = evaluateNode(op.right, scope, src);
        break;
      case '||':
        if (!value) value = evaluateNode(op.right, scope, src);
        break;
      case '??':
        if (value === null || value === undefined) value = evaluateNode(op.right, scope, src);
        break;
    }
  }
  return value;
}

/** A name a map bound (`as`, default `item`); any other name is not in scope here. */
function readVariable(scope: ExprScope, name: string, src: string, at: number): unknown {
  const vars = scope.vars;
  if (vars !== undefined && Object.hasOwn(vars, name)) return vars[name];
  const inScope = ['input', 'steps', ...Object.keys(vars ?? {})].join(', ');
  throw new ExpressionError(`unknown name '${name}'; expressions can read ${inScope} here`, src, at);
}

function evaluateArgs(args: readonly ExprNode[], scope: ExprScope, src: string): unknown[] {
  const values: unknown[] = [];
  for (const arg of args) values.push(evaluateNode(arg, scope, src));
  return values;
}

function callHelper(node: CallNode, scope: ExprScope, src: string): unknown {
  const helper = HELPERS.get(node.callee);
  if (helper === undefined) throw new ExpressionError(`'${node.callee}' is not an allowed function`, src, node.start);
  const args = evaluateArgs(node.args, scope, src);
  try {
    return helper.fn(args);
  } catch (error) {
    throw callError(error, `${node.callee}()`, src, node.start);
  }
}

function callMethod(node: MethodCallNode, scope: ExprScope, src: string): unknown {
  const target = evaluateNode(node.object, scope, src);
  if (target === null || target === undefined) {
    if (node.optional) return SHORT;
    throw new ExpressionError(
      `cannot call '${node.method}' on ${String(target)} (${pathOf(node.object, src)})`,
      src,
      node.start,
    );
  }
  if (target === SHORT) return SHORT;
  let method: Method<string> | Method<unknown[]> | undefined;
  if (typeof target === 'string') method = STRING_METHODS.get(node.method);
  else if (Array.isArray(target)) method = ARRAY_METHODS.get(node.method);
  if (method === undefined) {
    throw new ExpressionError(`'${node.method}' is not a method of ${describe(target)}`, src, node.start);
  }
  const args = evaluateArgs(node.args, scope, src);
  if (args.length < method.min || args.length > method.max) {
    const expected = method.min === method.max ? `${method.min}` : `${method.min} to ${method.max}`;
    throw new ExpressionError(`.${node.method}() takes ${expected} arguments, got ${args.length}`, src, node.start);
  }
  try {
    return (method.fn as (receiver: unknown, args: unknown[]) => unknown)(target, args);
  } catch (error) {
    throw callError(error, `.${node.method}()`, src, node.start);
  }
}

function callError(error: unknown, what: string, src: string, at: number): ExpressionError {
  if (error instanceof ExpressionError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ExpressionError(
    error instanceof ExprFault ? `${what}: ${message}` : `${what} failed: ${message}`,
    src,
    at,
  );
}

/** The source text of a sub-expression, for messages: `steps.a.output.b`. */
function pathOf(node: ExprNode, src: string): string {
  const text = src.slice(node.start, node.end);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
