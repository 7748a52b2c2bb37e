/** The public types of the expression module. */
import type { Json } from '../json.ts';
import type { ExprNode, ExprRoot } from './ast.ts';

/** What an expression can read. */
export interface ExprScope {
  input: Json;
  /** A plain object (may have a null prototype); read with Object.hasOwn. */
  steps: Readonly<Record<string, { output: Json }>>;
  /** Inside a `map`: the current item and its 0-based index. */
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
  /** The root names it reads. */
  readonly roots: ReadonlySet<ExprRoot>;
  readonly stepRefs: readonly StepRef[];
  /** Throws ExpressionError (and nothing else) when evaluation fails. */
  evaluate(scope: ExprScope): unknown;
}

export interface CompiledTemplate {
  readonly source: string;
  /** Literal text and the `{{ }}` expressions, in order. */
  readonly parts: readonly (string | CompiledExpression)[];
  readonly roots: ReadonlySet<ExprRoot>;
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
  roots: Set<ExprRoot>;
  stepRefs: StepRef[];
}
