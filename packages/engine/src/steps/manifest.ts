/**
 * The shape of a step manifest: everything one step type means, declared once in its own file
 * (`steps/<type>.ts`) and read by the registry, the validator, the code-first API, codegen's
 * import and the editor. A consumer switches on a field's *kind*, never on a step's type, so a
 * new step type is one new file plus one line in the registry.
 *
 * Framework-free: the editor part is plain data (an icon is a name the web maps to a glyph).
 */
import type { z } from 'zod';
import type { StepHandler } from '../interpreter/context.ts';
import type { Json } from '../json.ts';
import type { Step } from './registry.ts';

/**
 * What a config field holds, beyond its zod type. Kinds that hold expressions tell the
 * validator what to check; kinds that hold step lists tell every walker where children are.
 */
export type FieldSpec =
  /** A whole-value `=expr`, evaluated once in the step's scope (`map.items`, `llm.messages`). */
  | { readonly kind: 'expression' }
  /**
   * An `=expr` evaluated before each run of the step's body, seeing the body's names and the
   * previous run's outputs (`loop.while`). Code-first writes it as a function.
   */
  | { readonly kind: 'condition' }
  /** A string with `{{ expr }}` interpolations (or a whole `=expr`). */
  | { readonly kind: 'template'; readonly multiline?: boolean }
  /** An object whose values are templates (`http.headers`). */
  | { readonly kind: 'template-record' }
  /** An object whose values are expressions or literals (`tool.args`, `spawn.input`). */
  | { readonly kind: 'args' }
  /** An `=expr`, or any JSON value whose strings are expressions/templates (`transform.value`). */
  | { readonly kind: 'value' }
  /** A duration text such as "30s". */
  | { readonly kind: 'duration' }
  /** "<provider>:<model>". */
  | { readonly kind: 'model' }
  /** A JavaScript function body run in the sandbox. */
  | { readonly kind: 'code' }
  /** A JSON Schema. */
  | { readonly kind: 'json-schema' }
  /** Plain configuration: names, enums, numbers, lists of names. Its zod type says the rest. */
  | { readonly kind: 'literal' }
  /** A nested list of steps. */
  | { readonly kind: 'steps' }
  /** An object of named step lists (`parallel.branches`). */
  | { readonly kind: 'named-steps' }
  /** `[{ when: Expr, steps }]`: conditions evaluated in the step's scope, each with its arm. */
  | { readonly kind: 'cases' };

export type FieldKind = FieldSpec['kind'];

/** Kinds whose values the validator reads as expressions or templates in the step's own scope. */
export const EXPRESSION_KINDS: ReadonlySet<FieldKind> = new Set([
  'expression',
  'template',
  'template-record',
  'args',
  'value',
]);

/** Kinds that hold child step lists. */
export const STEP_LIST_KINDS: ReadonlySet<FieldKind> = new Set(['steps', 'named-steps', 'cases']);

/** Fields every step has (`baseStepShape`); a type may redeclare `timeout` to give it its own meaning. */
export const BASE_FIELDS = {
  name: { kind: 'literal' },
  retry: { kind: 'literal' },
  timeout: { kind: 'duration' },
} as const satisfies Record<string, FieldSpec>;

/** The fields of every step's `retry` policy (`retrySchema`). */
export const RETRY_FIELDS = {
  maxAttempts: { kind: 'literal' },
  backoff: { kind: 'literal' },
  initialDelay: { kind: 'duration' },
  maxDelay: { kind: 'duration' },
} as const satisfies Record<string, FieldSpec>;

type BaseKey = 'id' | 'type' | keyof typeof BASE_FIELDS;

/**
 * Every config field of a step type, each with its kind. A mapped type over the step's own
 * keys: a field the schema gains does not compile until it is declared here.
 */
export type FieldTable<S> = { readonly [K in Exclude<keyof S, BaseKey>]-?: FieldSpec } & {
  /** Only where `timeout` means something else than a call timeout (approval: the wait). */
  readonly timeout?: FieldSpec;
};

/**
 * How a container's child lists run, which decides what later steps may read:
 * - `alternatives`: at most one list runs (branch arms): afterwards only ids every arm ran are
 *   known, and a missing optional list is an arm that runs nothing;
 * - `concurrent`: every list runs from what ran before the step, never from a sibling;
 * - `repeated`: the body runs zero or more times: its ids are never visible after the step.
 */
export type ChildRuns = 'alternatives' | 'concurrent' | 'repeated';

/** A name a body's expressions can read, with what it holds (the editor's suggestions say it). */
export interface BodyName {
  readonly name: string;
  /** Completed with " of <step id>" by the editor. */
  readonly detail: string;
}

/** Names a body's expressions can read besides the enclosing scope's. */
export interface BodyScope {
  readonly names: readonly BodyName[];
  /** The config field that renames `names[0]` in the IR (a map's `as`); code-first bodies always receive the default name. */
  readonly renamedBy?: string;
}

/** Icon names; the web maps each to what it draws. A closed set so that map is exhaustive. */
export type StepIcon =
  | 'sparkles'
  | 'wrench'
  | 'braces'
  | 'exchange'
  | 'function'
  | 'diamond'
  | 'parallel'
  | 'ellipsis'
  | 'repeat'
  | 'check'
  | 'external'
  | 'moon'
  | 'cross';

/** How the canvas draws the step: a plain node, a fan-out with arms, or a box holding its body. */
export type StepShape = 'node' | 'fan-out' | 'container';

export interface EditorInfo {
  readonly label: string;
  readonly icon: StepIcon;
  readonly description: string;
  readonly shape: StepShape;
  /** Config of a freshly added step: every field but id, type and nested step lists. */
  readonly defaults: Readonly<Record<string, Json>>;
}

/** What a step's own checks report through; the validator supplies it. Paths are relative to the step. */
export interface StepChecks {
  issue(path: (string | number)[], message: string): void;
  /** Reports `name` unless the flow or the host defines a tool by that name. */
  tool(name: string, path: (string | number)[]): void;
  /** Reports a flow reference that is malformed, spawns its own flow, or is unknown or cyclic. */
  flowRef(text: string, path: (string | number)[]): void;
}

export interface StepManifest<S extends Step, Z extends z.ZodType = z.ZodType> {
  readonly type: S['type'];
  /** The zod schema of the whole step (`z.strictObject`, discriminated by `type`). */
  readonly schema: Z;
  readonly handler: StepHandler<S, unknown>;
  readonly fields: FieldTable<S>;
  /** Set exactly when the type has step-list fields. */
  readonly childRuns?: ChildRuns;
  /** Names the child lists' expressions can read (map: its item and index; loop: iteration). */
  readonly body?: BodyScope;
  /** The code-first shorthand `step.<type>('id', first, second)`: which fields those are. */
  readonly positional?: readonly [string, string?];
  /** Checks on the parsed step that the schema cannot express (names of tools and flows, field combinations). */
  readonly check?: (step: S, checks: StepChecks) => void;
  readonly editor: EditorInfo;
}

/** The names a step's body can read in the IR: `body.names`, the first renamed by its field. */
export function bodyNames(body: BodyScope | undefined, step: Readonly<Record<string, unknown>>): string[] {
  if (body === undefined) return [];
  const [first, ...rest] = body.names.map((entry) => entry.name);
  const renamed = body.renamedBy === undefined ? undefined : step[body.renamedBy];
  // An empty `as` is the editor's cleared field: the default name still applies.
  return first === undefined ? [] : [typeof renamed === 'string' && renamed !== '' ? renamed : first, ...rest];
}
