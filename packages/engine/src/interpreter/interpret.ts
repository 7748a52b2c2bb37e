/**
 * `interpret(flow, input, host)`: one deterministic async function that walks the IR and does
 * every side effect through the host. Replay is the only recovery mechanism: a host answers the
 * step ids it has journaled, so running this again from the top after a crash resumes the run.
 * Must load inside Temporal's workflow sandbox: no Node API, no clock, no randomness here.
 */
import { DeterminismError, isRunInterrupt, StepFailedError, toErrorInfo } from '../errors.ts';
import { resolveValue } from '../expr/index.ts';
import { durationMs } from '../ir/duration.ts';
import type { Flow } from '../ir/flow.ts';
import { type Json, toJson } from '../json.ts';
import { handlers, type Step } from '../steps/registry.ts';
import type { InterpretOptions, Scope, StepContext, StepHandler } from './context.ts';
import { type CallPolicy, defaultRetry, type StepHost } from './host.ts';

/** Step types whose external calls fail often enough that retrying is the sensible default. */
const DEFAULT_ATTEMPTS: Partial<Record<Step['type'], number>> = { llm: 3, http: 3 };

export async function interpret(
  flow: Flow,
  input: Json,
  host: StepHost,
  options: InterpretOptions = {},
): Promise<Json> {
  const interpreter = new Interpreter(flow, host, options);
  const scope: Scope = { input, steps: Object.create(null) };
  const last = await interpreter.runSteps(flow.steps, '', scope, undefined);
  return flow.output === undefined ? last : resolveValue(flow.output, scope);
}

export class Interpreter {
  readonly flow: Flow;
  readonly host: StepHost;
  readonly options: InterpretOptions;
  /** Code-first flows pass real values, not expressions: a string starting with "=" stays a string. */
  readonly #resolve: (value: unknown, scope: Scope) => Json;
  readonly #policies = new WeakMap<Step, CallPolicy>();

  constructor(flow: Flow, host: StepHost, options: InterpretOptions, mode: 'ir' | 'literal' = 'ir') {
    this.flow = flow;
    this.host = host;
    this.options = options;
    this.#resolve = mode === 'ir' ? resolveValue : (value) => toJson(value);
  }

  /**
   * A list of one step (a fan-out's branch, a map item's body) is that step's promise: no async
   * function, no extra turn (legacy mode keeps the `then` that took the turn an `await` once took:
   * legacy-turns.ts).
   */
  runSteps(steps: readonly Step[], prefix: string, scope: Scope, parentId: string | undefined): Promise<Json> {
    if (steps.length !== 1) return this.#runEach(steps, prefix, scope, parentId);
    const only = this.runStep(steps[0]!, prefix, scope, parentId);
    return this.options.legacyTurns ? only.then(same) : only;
  }

  async #runEach(steps: readonly Step[], prefix: string, scope: Scope, parentId: string | undefined): Promise<Json> {
    let last: Json = null;
    for (const step of steps) last = await this.runStep(step, prefix, scope, parentId);
    return last;
  }

  /**
   * A promise chain, not an async function: Temporal's workflow sandbox records a stack trace for
   * every promise created (most of a fan-out's cost there), and an async function with an `await`
   * makes two where one `then` does. It keeps the turns the async version took — the output is
   * seen as many microtask turns after the handler settles — because concurrent branches issue
   * their next commands in that order, which a recorded history must replay (turns.test.ts).
   */
  runStep(step: Step, prefix: string, scope: Scope, parentId: string | undefined): Promise<Json> {
    let path: string;
    let ctx: StepContext;
    let handler: StepHandler<Step, Json>;
    try {
      path = prefix + step.id;
      ctx = this.context(step, path, scope);
      handler = handlers[step.type] as StepHandler<Step, Json>;
    } catch (error) {
      return Promise.reject(error);
    }
    let started = false;
    try {
      const input = handler.describeInput ? handler.describeInput(step, ctx) : null;
      const shown = handler.redactInput && input !== null ? handler.redactInput(step, input, ctx) : input;
      this.host.emit({ type: 'step.started', stepId: path, stepType: step.type, ...optional(parentId, shown) });
      started = true;
      return handler.execute(step, ctx, input).then(
        (output) => {
          try {
            scope.steps[step.id] = { output };
            this.host.emit({ type: 'step.completed', stepId: path, output });
            return output;
          } catch (error) {
            throw this.#failed(error, step, path, true, parentId);
          }
        },
        (error: unknown) => {
          throw this.#failed(error, step, path, true, parentId);
        },
      );
    } catch (error) {
      return Promise.reject(this.#failed(error, step, path, started, parentId));
    }
  }

  /** What a step's failure rethrows (an interrupt as is), having emitted its events. */
  #failed(error: unknown, step: Step, path: string, started: boolean, parentId: string | undefined): unknown {
    if (isRunInterrupt(error)) return error;
    // A determinism error keeps its own class and code: the flow changed, no step failed.
    const failure =
      error instanceof StepFailedError || error instanceof DeterminismError
        ? error
        : new StepFailedError(path, messageOf(error), { cause: error });
    if (!started) {
      // Resolving the inputs failed before `step.started`: emit it so the log still shows the step.
      this.host.emit({ type: 'step.started', stepId: path, stepType: step.type, ...optional(parentId, null) });
    }
    this.host.emit({ type: 'step.failed', stepId: path, error: toErrorInfo(failure) });
    return failure;
  }

  context(step: Step, path: string, scope: Scope): StepContext {
    return {
      host: this.host,
      flow: this.flow,
      options: this.options,
      scope,
      path,
      policy: this.policy(step),
      resolve: (value, at) => this.#resolve(value, at ?? scope),
      runSteps: (steps, prefix, childScope) => this.runSteps(steps, prefix, childScope, path),
    };
  }

  policy(step: Step): CallPolicy {
    let policy = this.#policies.get(step);
    if (policy) return policy;
    const retry = defaultRetry(step.retry?.maxAttempts ?? DEFAULT_ATTEMPTS[step.type] ?? 1);
    if (step.retry) {
      retry.backoff = step.retry.backoff;
      retry.initialDelayMs = durationMs(step.retry.initialDelay);
      if (step.retry.maxDelay !== undefined) retry.maxDelayMs = durationMs(step.retry.maxDelay);
    }
    // An approval's `timeout` is how long it waits, not a per-call limit.
    const timeoutMs = step.timeout !== undefined && step.type !== 'approval' ? durationMs(step.timeout) : undefined;
    policy = timeoutMs === undefined ? { retry } : { retry, timeoutMs };
    this.#policies.set(step, policy);
    return policy;
  }
}

function same<T>(value: T): T {
  return value;
}

function optional(parentId: string | undefined, input: Json): { parentId?: string; input?: Json } {
  const extra: { parentId?: string; input?: Json } = {};
  if (parentId !== undefined) extra.parentId = parentId;
  if (input !== null) extra.input = input;
  return extra;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
