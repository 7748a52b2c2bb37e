/**
 * The code-first API: a flow written as TypeScript over the same host and the same step
 * handlers as the IR. `step.<type>(id, config)` takes the IR step's config with real values
 * instead of expressions and functions instead of nested step lists; `steps.<id>.output`
 * reads an earlier step's output exactly as an expression does. TS export emits this shape.
 *
 *   export default defineFlow({ id: 'triage', name: 'Triage' }, async ({ input, step, steps }) => {
 *     await step.llm('draft', { model: 'mock:echo', prompt: template`Reply to: ${input.ticket}` });
 *     await step.parallel('fan', {
 *       branches: {
 *         a: async ({ step }) => step.tool('lookup', { tool: 'crm', args: { q: input.ticket } }),
 *         b: async ({ step, steps }) => step.code('count', { source: countWords, args: { text: steps.draft.output.text } }),
 *       },
 *     });
 *     return steps.draft.output.text;
 *   });
 */

import { toJsonValue } from '../expr/values.ts';
import type { InterpretOptions, Scope } from '../interpreter/context.ts';
import type { StepHost } from '../interpreter/host.ts';
import type { Flow } from '../ir/flow.ts';
import type { Json } from '../json.ts';
import { CodeFirstInterpreter } from './step-api.ts';
import type { BodyContext, FlowMeta } from './types.ts';

export { type CodeFunction, codeSourceFromFunctionText, codeSourceOf, indentCodeSource } from './code-source.ts';
export { eq, HELPER_NAMES, type HelperName, helpers, ne, template } from './expr-runtime.ts';
export * from './types.ts';

export interface CodeFirstFlow<I = Json, O = Json> {
  readonly kind: 'code-first';
  readonly meta: FlowMeta;
  readonly run: (ctx: BodyContext & { input: I }) => Promise<O>;
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

/**
 * Runs a code-first flow over a host: the same handlers, ids and events as the IR interpreter.
 * The result is JSON as an IR flow's output is (undefined becomes null).
 */
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
  const interpreter = new CodeFirstInterpreter(asFlow, host, options);
  const scope: Scope = { input: input as Json, steps: Object.create(null) };
  const output = await flow.run({ input, step: interpreter.stepsAt('', scope, undefined), steps: scope.steps });
  return toJsonValue(output) as O;
}
