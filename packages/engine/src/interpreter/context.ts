/**
 * What a step handler sees. Handlers live one per step type in `steps/`; they reach the world
 * only through `ctx.host` and read data only through `ctx.resolve` (the safe expression
 * evaluator), which is what keeps the interpreter deterministic.
 */
import type { ExprScope } from '../expr/index.ts';
import type { Flow } from '../ir/flow.ts';
import type { Json } from '../json.ts';
import type { Step } from '../steps/registry.ts';
import type { CallPolicy, Fixtures, StepHost, ToolSpec } from './host.ts';

/** Mutable during a run: each completed step adds `steps[id] = { output }`. */
export type Scope = ExprScope & { steps: Record<string, { output: Json }> };

export interface InterpretOptions {
  /** Recorded model turns that replace the provider, per llm step path or id. */
  fixtures?: Fixtures;
  /** Tools the host application registered, by name (their code runs in the host). */
  hostTools?: Record<string, Omit<ToolSpec, 'name'>>;
  /**
   * The promise turns of the interpreter before tool calls lost their async wrappers, for a
   * Temporal history recorded then (legacy-turns.ts). Nothing else needs it.
   */
  legacyTurns?: boolean;
}

export interface StepContext {
  readonly host: StepHost;
  readonly flow: Flow;
  readonly options: InterpretOptions;
  readonly scope: Scope;
  /** The full, stable id of this step in the run: "fanout.a/fetch", "each[2]/summarize". */
  readonly path: string;
  /** The retry/timeout policy for checkpointed calls this step makes. */
  readonly policy: CallPolicy;
  /** Evaluates expressions/templates inside a config value against this step's scope. */
  resolve(value: unknown, scope?: Scope): Json;
  /** Runs a list of steps in order under `prefix` ("fanout.a/") and returns the last output (null if empty). */
  runSteps(steps: readonly Step[], prefix: string, scope: Scope): Promise<Json>;
}

/**
 * `describeInput` resolves the step's inputs once; they are shown on `step.started` and handed
 * to `execute`, so what the UI shows is exactly what ran. Without it, `input` is null.
 */
export interface StepHandler<S extends Step, I = Json> {
  describeInput?(step: S, ctx: StepContext): I;
  /**
   * What `step.started` shows instead of the input, when the input may hold credentials: the
   * event is stored and streamed to the browser, while `execute` still gets the real input.
   */
  redactInput?(step: S, input: I, ctx: StepContext): Json;
  execute(step: S, ctx: StepContext, input: I): Promise<Json>;
}

/** A child scope for a loop/map iteration: sees every output visible outside, adds its own. */
export function childScope(parent: Scope, extra: Partial<ExprScope>): Scope {
  const steps: Record<string, { output: Json }> = Object.assign(Object.create(null), parent.steps);
  return { ...parent, ...extra, steps };
}
