/**
 * The code-first API: a flow written as TypeScript over the same host and the same step
 * handlers as the IR. `step.<type>(id, config)` takes the IR step's config with real values
 * instead of expressions. TS export emits this shape.
 *
 *   export default defineFlow({ id: 'triage', name: 'Triage' }, async ({ input, step }) => {
 *     const draft = await step.llm('draft', { model: 'mock:echo', prompt: input.ticket });
 *     return draft.text;
 *   });
 */
import { NonRetryableError } from '../errors.ts';
import type { InterpretOptions, Scope } from '../interpreter/context.ts';
import type { HttpCallOutput, StepHost } from '../interpreter/host.ts';
import { Interpreter } from '../interpreter/interpret.ts';
import type { Flow, FlowTool } from '../ir/flow.ts';
import type { Json, JsonObject } from '../json.ts';
import type { Step } from '../steps/registry.ts';

type ConfigOf<T extends Step['type']> = Omit<Extract<Step, { type: T }>, 'id' | 'type'>;

export interface LlmOutput {
  text: string;
  object?: Json;
  messages: JsonObject[];
  toolCalls: { id: string; tool: string; args: Json; result: Json }[];
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  finishReason: string;
}

export interface ApprovalOutput {
  approved: boolean;
  by: string | null;
  comment: string | null;
  at: string;
}

export interface FlowSteps {
  llm(id: string, config: ConfigOf<'llm'>): Promise<LlmOutput>;
  tool(id: string, tool: string, args?: JsonObject): Promise<Json>;
  /** `source` is a JavaScript function body run in the sandbox with `args`, `input`, `steps`. */
  code(id: string, source: string, args?: JsonObject): Promise<Json>;
  http(id: string, request: ConfigOf<'http'>): Promise<HttpCallOutput>;
  approval(id: string, config: ConfigOf<'approval'>): Promise<ApprovalOutput>;
  spawn(id: string, flow: string, input?: JsonObject): Promise<Json>;
  sleep(id: string, duration: string): Promise<{ until: string }>;
  fail(id: string, message: string): Promise<never>;
}

export interface FlowMeta {
  id: string;
  name?: string;
  tools?: Record<string, FlowTool>;
}

export interface CodeFirstFlow<I = Json, O = Json> {
  readonly kind: 'code-first';
  readonly meta: FlowMeta;
  readonly run: (ctx: { input: I; step: FlowSteps }) => Promise<O>;
}

export function defineFlow<I = Json, O = Json>(
  metaOrRun: FlowMeta | CodeFirstFlow<I, O>['run'],
  maybeRun?: CodeFirstFlow<I, O>['run'],
): CodeFirstFlow<I, O> {
  const meta = typeof metaOrRun === 'function' ? { id: 'code-flow' } : metaOrRun;
  const run = typeof metaOrRun === 'function' ? metaOrRun : maybeRun;
  if (!run) throw new TypeError('defineFlow needs a function: defineFlow(meta, async ({ input, step }) => …)');
  return { kind: 'code-first', meta, run };
}

export function isCodeFirstFlow(value: unknown): value is CodeFirstFlow {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'code-first';
}

/** Runs a code-first flow over a host: the same handlers, ids and events as the IR interpreter. */
export async function runCodeFirst<I, O>(
  flow: CodeFirstFlow<I, O>,
  input: I,
  host: StepHost,
  options: InterpretOptions = {},
): Promise<O> {
  const asFlow = {
    irVersion: 1,
    id: flow.meta.id,
    name: flow.meta.name ?? flow.meta.id,
    steps: [],
    ...(flow.meta.tools ? { tools: flow.meta.tools } : {}),
  } as unknown as Flow;
  const interpreter = new Interpreter(asFlow, host, options, 'literal');
  const scope: Scope = { input: input as Json, steps: Object.create(null) };
  const used = new Set<string>();
  const run = <T>(step: Step): Promise<T> => {
    if (used.has(step.id))
      return Promise.reject(new NonRetryableError(`step id '${step.id}' is used twice in this run`));
    used.add(step.id);
    return interpreter.runStep(step, '', scope, undefined) as Promise<T>;
  };
  const step: FlowSteps = {
    llm: (id, config) => run({ ...config, id, type: 'llm' }),
    tool: (id, tool, args) => run({ id, type: 'tool', tool, ...(args ? { args } : {}) }),
    code: (id, source, args) => run({ id, type: 'code', source, ...(args ? { args } : {}) }),
    http: (id, request) => run({ ...request, id, type: 'http' }),
    approval: (id, config) => run({ ...config, id, type: 'approval' }),
    spawn: (id, flowRef, childInput) =>
      run({ id, type: 'spawn', flow: flowRef, ...(childInput ? { input: childInput } : {}) }),
    sleep: (id, duration) => run({ id, type: 'sleep', duration }),
    fail: (id, message) => run({ id, type: 'fail', message }),
  };
  return flow.run({ input, step });
}
