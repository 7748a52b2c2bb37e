/** The public types of the expression module. */
import type { Json } from '../json.ts';
import type { ExprNode } from './ast.ts';

/** What an expression can read. */
export interface ExprScope {
  input: Json;
  /** A plain object (may have a null prototype); read with Object.hasOwn. */
  steps: Readonly<Record<string, { output: Json }>>;
  /**
   * Names bound by the enclosing maps (each map's `as`, default `item`), innermost last.
   * A null-prototype object: read with Object.hasOwn.
   */
  vars?: Readonly<Record<string, Json>>;
  /** Inside a `map`: the innermost map's current item (code-first bodies receive it) and its 0-based index. */
  item?: Json;
  index?: number;
  /** Inside a `loop`: the 0-based index of the iteration. */
  iteration?: number;
  /** In a tool definition: the tool's arguments. */
  args?: Json;
}

/** A static read of `steps.<id>` (or `steps['id']`), with the static member path after it. */
export interface StepRef {
  stepId: string;
  /** e.g. ['output', 'text'] for `steps.a.output.text`; stops at the first computed member. */
  path: string[];
}

export interface CompiledExpression {
  /** The expression, without the leading '='. */
  readonly source: string;
  readonly ast: ExprNode;
  /** The names it reads: built-in roots and map variables. */
  readonly roots: ReadonlySet<string>;
  /** Where each name is first read (offset into `source`). */
  readonly namePositions: ReadonlyMap<string, number>;
  readonly stepRefs: readonly StepRef[];
  /** Throws ExpressionError (and nothing else) when evaluation fails. */
  evaluate(scope: ExprScope): unknown;
}

export interface CompiledTemplate {
  readonly source: string;
  /** Literal text and the `{{ }}` expressions, in order. */
  readonly parts: readonly (string | CompiledExpression)[];
  readonly roots: ReadonlySet<string>;
  /** Where each name is first read (offset into the template source). */
  readonly namePositions: ReadonlyMap<string, number>;
  readonly stepRefs: readonly StepRef[];
  /** Throws ExpressionError (source: the template, position: an offset into it). */
  render(scope: ExprScope): string;
}

export interface InspectIssue {
  /** Where in the inspected value (object keys, array indices). */
  path: (string | number)[];
  message: string;
  /** 0-based offset into that string, when known. */
  position?: number;
}

export interface InspectReport {
  issues: InspectIssue[];
  roots: Set<string>;
  /** The first read of each name in each expression or template string, by where it is. */
  names: { name: string; path: (string | number)[]; position: number }[];
  stepRefs: StepRef[];
}
