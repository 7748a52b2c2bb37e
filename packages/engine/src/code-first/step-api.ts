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
import type { Step } from '../steps/registry.ts';
import { type CodeFunction, codeSourceOf } from './code-source.ts';
import type { Body, BodyContext, CodeConfig, FlowSteps } from './types.ts';

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
    const positional = <K extends string>(key: K, first: unknown, rest?: Record<string, unknown>, restKey?: string) =>
      typeof first === 'object' && first !== null
        ? first
        : { [key]: first, ...(rest && restKey ? { [restKey]: rest } : {}) };
    return {
      llm: (id, config) => run({ ...config, id, type: 'llm' }),
      tool: (id: string, config: unknown, args?: Record<string, unknown>) =>
        run({ ...positional('tool', config, args, 'args'), id, type: 'tool' }),
      code: (id: string, config: unknown, args?: Record<string, unknown>) => {
        const given = (
          typeof config === 'object' && config !== null ? config : { source: config, ...(args ? { args } : {}) }
        ) as CodeConfig;
        const source = typeof given.source === 'function' ? codeSourceOf(given.source as CodeFunction) : given.source;
        return run({ ...given, source, id, type: 'code' });
      },
      http: (id, request) => run({ ...request, id, type: 'http' }),
      transform: (id, config) => run({ ...config, id, type: 'transform' }),
      branch: (id, { cases, else: otherwise, ...config }) =>
        run({
          ...config,
          cases: cases.map(({ when, steps }) => ({ when, steps: bodyList(steps) })),
          ...(otherwise === undefined ? {} : { else: bodyList(otherwise) }),
          id,
          type: 'branch',
        }),
      parallel: (id, { branches, ...config }) =>
        run({
          ...config,
          branches: Object.fromEntries(Object.entries(branches).map(([name, body]) => [name, bodyList(body)])),
          id,
          type: 'parallel',
        }),
      map: (id, config) => run({ ...config, steps: bodyList(config.steps as Body<never>), id, type: 'map' }),
      loop: (id, config) => run({ ...config, steps: bodyList(config.steps as Body<never>), id, type: 'loop' }),
      approval: (id, config) => run({ ...config, id, type: 'approval' }),
      spawn: (id: string, config: unknown, input?: Record<string, unknown>) =>
        run({ ...positional('flow', config, input, 'input'), id, type: 'spawn' }),
      sleep: (id, config) => run({ ...positional('duration', config), id, type: 'sleep' }),
      fail: (id, config) => run({ ...positional('message', config), id, type: 'fail' }),
    };
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
