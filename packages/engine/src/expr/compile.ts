/** `compileExpression`: parse once (cached by source), evaluate many times. */
import { ExpressionError } from '../errors.ts';
import { analyze } from './analyze.ts';
import type { ExprNode } from './ast.ts';
import { evaluateNode } from './evaluate.ts';
import { ExprFault, resetBudget } from './limits.ts';
import { parse } from './parser.ts';
import type { CompiledExpression, ExprScope, StepRef } from './types.ts';

/** Compiled expressions kept, by source; the oldest is dropped first. */
export const EXPRESSION_CACHE_SIZE = 2_000;
const cache = new Map<string, CompiledExpression>();

class Compiled implements CompiledExpression {
  readonly source: string;
  readonly ast: ExprNode;
  readonly roots: ReadonlySet<string>;
  readonly namePositions: ReadonlyMap<string, number>;
  readonly stepRefs: readonly StepRef[];

  constructor(source: string, ast: ExprNode) {
    this.source = source;
    this.ast = ast;
    const { roots, namePositions, stepRefs } = analyze(ast);
    this.roots = roots;
    this.namePositions = namePositions;
    this.stepRefs = stepRefs;
  }

  evaluate(scope: ExprScope): unknown {
    resetBudget();
    return runExpression(this, scope);
  }
}

/**
 * Compiles an expression. The source may carry the leading '=' of a config value or not.
 * Throws ExpressionError (with a position into the source without '=').
 */
export function compileExpression(source: string): CompiledExpression {
  const hit = cache.get(source);
  if (hit !== undefined) return hit;
  if (typeof source !== 'string') throw new ExpressionError('an expression must be a string', String(source), 0);
  const body = source.startsWith('=') ? source.slice(1) : source;
  const compiled = new Compiled(body, parse(body));
  if (cache.size >= EXPRESSION_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(source, compiled);
  return compiled;
}

/**
 * Evaluates without resetting the allocation budget (a template renders several expressions on
 * one budget). Whatever goes wrong surfaces as an ExpressionError: one try per evaluation.
 */
export function runExpression(expr: CompiledExpression, scope: ExprScope): unknown {
  try {
    return evaluateNode(expr.ast, scope, expr.source);
  } catch (error) {
    if (error instanceof ExpressionError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new ExpressionError(error instanceof ExprFault ? message : `evaluation failed: ${message}`, expr.source);
  }
}
