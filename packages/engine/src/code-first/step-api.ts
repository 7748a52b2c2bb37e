/**
 * Runs code-first steps through the IR interpreter's own handlers. Each `step.<type>(id,
 * config)` call becomes the IR step with that config and goes through `Interpreter.runStep`,
 * so ids, paths, scopes, events, retries and checkpointing are the interpreter's. A container's
 * nested step list is a function here: it travels inside the IR step as a marked empty list,
 * and when the handler asks to run that list (`runSteps`, with the prefix and scope the
 * handler chose: `fan.a/`, `each[2]/`, a parallel branch's own copy of the scope, …) the
 * function runs instead, with a `step` bound to that prefix and scope.
 */
import { NonRetryableError } from '../errors.ts';
import { toJsonValue } from '../expr/values.ts';
import type { InterpretOptions, Scope, StepContext } from '../interpreter/context.ts';
import type { StepHost } from '../interpreter/host.ts';
import { Interpreter } from '../interpreter/interpret.ts';
import type { Flow } from '../ir/flow.ts';
import type { Json } from '../json.ts';
import type { FieldSpec } from '../steps/manifest.ts';
import { manifestOf, STEP_TYPES, type Step, type StepType } from '../steps/registry.ts';
import { type CodeFunction, codeSourceOf } from './code-source.ts';
import type { Body, BodyContext, FlowSteps } from './types.ts';

const BODY: unique symbol = Symbol('code-first body');
type BodyList = Step[] & { [BODY]?: Body<never> };

const STEP_ID = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** A step list the handler can pass around as usual; running it calls `body`. */
function bodyList(body: Body<never>): Step[] {
  if (typeof body !== 'function') throw new TypeError('a nested step list must be a function: async ({ step }) => …');
  return Object.assign([] as Step[], { [BODY]: body });
}

export class CodeFirstInterpreter extends Interpreter {
  /** Full step paths already run: a path asked for twice would collide in the journal. */
  readonly #used = new Set<string>();

  constructor(flow: Flow, host: StepHost, options: InterpretOptions) {
    super(flow, host, options, 'literal');
  }

  override async runSteps(
    steps: readonly Step[],
    prefix: string,
    scope: Scope,
    parentId: string | undefined,
  ): Promise<Json> {
    const body = (steps as BodyList)[BODY] as Body<BodyContext> | undefined;
    if (body === undefined) return super.runSteps(steps, prefix, scope, parentId);
    return toJsonValue(await body({ ...frameOf(scope), step: this.stepsAt(prefix, scope, parentId) }));
  }

  /**
   * Values are literal, except functions: `when`/`while` are evaluated when the handler asks,
   * against the scope it asks with (a loop's condition sees the previous iteration's outputs).
   */
  override context(step: Step, path: string, scope: Scope): StepContext {
    const ctx = super.context(step, path, scope);
    return {
      ...ctx,
      resolve: (value, at) => {
        const frame = at ?? scope;
        return toJsonValue(typeof value === 'function' ? value(frameOf(frame)) : value);
      },
    };
  }

  /** The `step` object of a body running under `prefix` in `scope`. */
  stepsAt(prefix: string, scope: Scope, parentId: string | undefined): FlowSteps {
    const run = (step: Record<string, unknown>): Promise<never> => {
      const id = step.id as string;
      if (typeof id !== 'string' || !STEP_ID.test(id))
        return Promise.reject(new NonRetryableError(`step id ${JSON.stringify(id)} must be an identifier`));
      const path = prefix + id;
      if (this.#used.has(path))
        return Promise.reject(new NonRetryableError(`step id '${path}' is used twice in this run`));
      this.#used.add(path);
      return this.runStep(step as unknown as Step, prefix, scope, parentId) as Promise<never>;
    };
    const call = (type: StepType) => (id: string, first: unknown, second?: unknown) => {
      const config = irConfig(type, first, second);
      if (config === undefined)
        return Promise.reject(
          new NonRetryableError(`step.${type} takes a config object: step.${type}('${id}', { … })`),
        );
      return run({ ...config, id, type });
    };
    return Object.fromEntries(STEP_TYPES.map((type) => [type, call(type)])) as unknown as FlowSteps;
  }
}

/**
 * The IR config of a `step.<type>(id, first, second)` call, read through the type's manifest:
 * the positional shorthand names its fields, a nested step list (a function) becomes a marked
 * list, and a code source given as a function becomes its text. Undefined when the call is
 * neither a config object nor a shorthand the type has.
 */
function irConfig(type: StepType, first: unknown, second: unknown): Record<string, unknown> | undefined {
  const manifest = manifestOf(type);
  const [key, restKey] = manifest.positional ?? [];
  let given: Record<string, unknown>;
  if (typeof first === 'object' && first !== null) given = { ...first };
  else if (key !== undefined) given = { [key]: first, ...(second && restKey ? { [restKey]: second } : {}) };
  else return undefined;
  for (const [field, spec] of Object.entries(manifest.fields as Record<string, FieldSpec>)) {
    if (given[field] !== undefined) given[field] = irField(spec, given[field]);
  }
  return given;
}

/** One config value as the IR step holds it, by its field's kind. */
function irField(spec: FieldSpec, value: unknown): unknown {
  switch (spec.kind) {
    case 'steps':
      return bodyList(value as Body<never>);
    case 'named-steps':
      return Object.fromEntries(
        Object.entries(value as Record<string, Body<never>>).map(([name, body]) => [name, bodyList(body)]),
      );
    case 'cases':
      return (value as { when: unknown; steps: Body<never> }[]).map(({ when, steps }) => ({
        when,
        steps: bodyList(steps),
      }));
    case 'code':
      return typeof value === 'function' ? codeSourceOf(value as CodeFunction) : value;
    case 'expression':
    case 'condition':
    case 'template':
    case 'template-record':
    case 'args':
    case 'value':
    case 'duration':
    case 'model':
    case 'json-schema':
    case 'literal':
      // Real values: the handler's `resolve` passes them through (functions it calls).
      return value;
  }
}

/** What a body or a condition sees of a scope. */
function frameOf(scope: Scope): Omit<BodyContext, 'step'> & Record<string, unknown> {
  const frame: Omit<BodyContext, 'step'> & Record<string, unknown> = { input: scope.input, steps: scope.steps };
  if (scope.item !== undefined) frame.item = scope.item;
  if (scope.index !== undefined) frame.index = scope.index;
  if (scope.iteration !== undefined) frame.iteration = scope.iteration;
  return frame;
}
