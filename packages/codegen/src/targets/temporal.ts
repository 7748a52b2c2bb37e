/**
 * The `temporal` target: a workflow file and an activities file (Temporal TypeScript SDK 1.x),
 * runnable without Weft. Dependencies: `@temporalio/workflow` and `@temporalio/activity`, and `ai`
 * plus the `@ai-sdk/*` providers the flow's models name (activities only).
 *
 * - `<id>.workflow.ts`: the deterministic half. `export async function <camelId>(input)` runs
 *   `runFlow`, whose durable operations are activities (one `proxyActivities` per retry policy:
 *   the step's attempts, backoff and timeout become the activity's RetryPolicy and
 *   startToCloseTimeout), an approval is the `approve` signal + `condition(timeout)`, sleep is
 *   `sleep`, spawn is `executeChild`, parallel/map are `Promise.allSettled`.
 * - `<id>.activities.ts`: model turns through `ai`, http through fetch, code step bodies as
 *   functions. Register it with the worker: `Worker.create({ workflowsPath, activities })`.
 */
import type { Flow } from '@weft/engine';
import { camelId, durableBody, header, inputType, runtimeSource } from '../emit/durable-module.ts';
import { callTypes, flowTypes, policiesSource } from '../emit/durable-runtime.ts';
import type { RetryPolicy } from '../emit/durable-steps.ts';
import { docComment, stringLiteral } from '../emit/escape.ts';
import { jsonLiteral } from '../emit/values.ts';
import type { ExportFile, ExportOptions, ExportTarget } from './target.ts';

export const temporalTarget: ExportTarget = {
  name: 'temporal',
  emit: (flow, options) => temporalFiles(flow, options)[0]!.contents,
  emitFiles: temporalFiles,
};

export function temporalFiles(flow: Flow, options: ExportOptions = {}): ExportFile[] {
  const body = durableBody(flow, true, 'signal: AbortSignal = cancellationSignal()');
  const { module } = body;
  const activitiesPath = `./${flow.id}.activities.js`;
  const name = camelId(flow.id);
  const uses = module.uses;
  const exported = new Set(options.flows ?? []);
  const children = [...module.childFlows].sort();

  const fromWorkflow = ['ApplicationFailure', 'TemporalFailure'];
  if (module.policies.size > 0) fromWorkflow.push('proxyActivities');
  if (uses.has('approval')) fromWorkflow.push('condition', 'defineQuery', 'defineSignal', 'setHandler');
  if (uses.has('sleep')) fromWorkflow.push('sleep');
  if (uses.has('spawn')) fromWorkflow.push('executeChild');
  // The run's id keys an http call's Idempotency-Key; a child's workflow id derives from it.
  if (uses.has('spawn') || uses.has('http')) fromWorkflow.push('workflowInfo');
  const callTypeNames = ['Policy'];
  if (uses.has('modelTurn')) callTypeNames.push('ModelTurn', 'ModelTurnRequest', 'Usage');
  if (uses.has('modelTurn') || module.toolNames.size > 0) callTypeNames.push('ToolSpec');
  if (uses.has('http')) callTypeNames.push('HttpRequest', 'HttpResponse');
  const imports = [
    `import { ${fromWorkflow.sort().join(', ')} } from '@temporalio/workflow';`,
    module.policies.size > 0 ? `import type * as activities from ${stringLiteral(activitiesPath)};` : '',
    `import type { ${callTypeNames.sort().join(', ')} } from ${stringLiteral(activitiesPath)};`,
    ...children
      .filter((id) => exported.has(id) && id !== flow.id)
      .map((id) => `import { ${camelId(id)} } from ${stringLiteral(`./${id}.workflow.js`)};`),
  ];

  const workflow = [
    header(flow, 'a Temporal workflow (@temporalio/workflow)', module, [
      `Start it as workflow type '${name}' with the run input as its one argument; register`,
      `${flow.id}.activities.ts with the worker.`,
      ...(uses.has('approval')
        ? ["Approvals: signal 'approve' with { stepId, approved, by?, comment? }; query 'pendingApprovals'."]
        : []),
    ]),
    imports.filter((line) => line !== '').join('\n'),
    inputType(flow),
    '', // expression helpers, below
    policiesSource(module),
    activityProxies(module.policies),
    flowTypes(module),
    `/** The error that fails the workflow without retrying: a \`fail\` step, a bad value. */
function failure(message: string): Error {
  return ApplicationFailure.nonRetryable(message);
}`,
    body.orchestration,
    uses.has('spawn') ? childWorkflow(children, exported, flow.id) : '',
    body.runFlow,
    uses.has('approval') ? APPROVAL_DEFINITIONS : '',
    `${docComment(`'${flow.name}' as a Temporal workflow.`)}
export async function ${name}(input: Input): Promise<any> {
${uses.has('approval') ? APPROVAL_STATE : ''}
  // Each durable operation of the flow as Temporal primitives.
  const durable: Durable = {
${temporalOps(uses).join('\n')}
  };
  try {
    return await runFlow(input, durable);
  } catch (error) {
    // An error thrown by the flow's own logic fails the workflow instead of retrying its task forever.
    if (error instanceof TemporalFailure) throw error;
    throw ApplicationFailure.nonRetryable(errorMessage(error));
  }
}`,
  ];
  workflow[3] = runtimeSource(module);

  const fromActivity = ['ApplicationFailure'];
  if (uses.has('modelTurn') || uses.has('http')) fromActivity.push('cancellationSignal');
  const activitiesFile = [
    header(flow, 'Temporal activities (@temporalio/activity)', module, [
      `The calls of workflow '${name}' (${flow.id}.workflow.ts): pass this module as the worker's activities.`,
    ]),
    [...body.imports, `import { ${fromActivity.join(', ')} } from '@temporalio/activity';`].join('\n'),
    callTypes(module, true),
    `/** An error the activity's retry policy must not retry. */
function nonRetryable(message: string): Error {
  return ApplicationFailure.nonRetryable(message);
}`,
    body.executors,
    uses.has('hostTool')
      ? `/** Tools the Weft host application registered: they are not part of the flow, implement them here. */
const HOST_TOOLS: Record<string, (args: any) => Promise<any>> = {};

export async function hostTool(name: string, args: any): Promise<any> {
  const tool = Object.hasOwn(HOST_TOOLS, name) ? HOST_TOOLS[name] : undefined;
  if (!tool) throw nonRetryable(\`unknown tool '\${name}'\`);
  return tool(args);
}`
      : '',
  ];
  const join = (parts: string[]) => parts.filter((part) => part.trim() !== '').join('\n\n');
  return [
    { path: `${flow.id}.workflow.ts`, contents: join(workflow) },
    { path: `${flow.id}.activities.ts`, contents: join(activitiesFile) },
  ];
}

/** Temporal activity options for a policy: attempts, backoff and per-attempt timeout. */
export function activityOptions(policy: RetryPolicy): string {
  const retry = {
    maximumAttempts: policy.maxAttempts,
    initialInterval: policy.initialDelayMs,
    backoffCoefficient: policy.backoff === 'fixed' ? 1 : 2,
    maximumInterval: policy.maxDelayMs,
  };
  // Temporal needs a limit; a step without `timeout` has none in Weft, so it gets a generous one.
  const timeout = policy.timeoutMs === undefined ? "'1 hour'" : String(policy.timeoutMs);
  return `{ startToCloseTimeout: ${timeout}, retry: ${jsonLiteral(retry)} }`;
}

function activityProxies(policies: ReadonlyMap<string, RetryPolicy>): string {
  if (policies.size === 0) return '';
  const entries = [...policies].map(
    ([name, policy]) => `${name}: proxyActivities<typeof activities>(${activityOptions(policy)}),`,
  );
  return `/** The activities, once per policy: a step's retries and timeout are its activity's. */
const CALLS = {
${entries.join('\n')}
} satisfies Record<PolicyName, unknown>;`;
}

function temporalOps(uses: ReadonlySet<string>): string[] {
  const ops: string[] = [];
  if (uses.has('modelTurn')) ops.push('modelTurn: (_id, policy, request) => CALLS[policy].modelTurn(request),');
  if (uses.has('http'))
    ops.push(
      'http: (id, policy, request) => CALLS[policy].httpRequest(request, { runId: workflowInfo().runId, stepId: id }),',
    );
  if (uses.has('code'))
    ops.push('code: (_id, policy, name, args, input, steps) => CALLS[policy][name](args, input, steps),');
  if (uses.has('hostTool')) ops.push('hostTool: (_id, policy, name, args) => CALLS[policy].hostTool(name, args),');
  if (uses.has('approval')) {
    ops.push(`approval: async (id, request) => {
  pending.set(id, request.prompt);
  const decided = () => decisions.has(id);
  let timedOut = false;
  if (request.timeoutMs === undefined) await condition(decided);
  else timedOut = !(await condition(decided, request.timeoutMs));
  pending.delete(id);
  if (!timedOut) {
    const { approved, by, comment, at } = decisions.get(id)!;
    return { approved: approved === true, by: by ?? null, comment: comment ?? null, at };
  }
  if (request.onTimeout === 'fail') throw failure(\`approval timed out after \${request.timeout}\`);
  return { approved: request.onTimeout === 'approve', by: 'timeout', comment: null, at: new Date().toISOString() };
},`);
  }
  if (uses.has('sleep')) {
    ops.push(`sleep: async (_id, ms) => {
  const until = new Date(Date.now() + ms).toISOString();
  await sleep(ms);
  return { until };
},`);
  }
  if (uses.has('spawn')) ops.push('spawn: (id, flow, input) => childWorkflow(flow, id, input),');
  return ops;
}

const APPROVAL_DEFINITIONS = `export interface ApprovalDecision {
  /** The approval step's id (its path in the run, e.g. "gate/signoff"). */
  stepId: string;
  approved: boolean;
  by?: string | null;
  comment?: string | null;
}

/** Decides a waiting approval step. */
export const approveSignal = defineSignal<[ApprovalDecision]>('approve');
/** The approvals the run is waiting for, with their prompts. */
export const pendingApprovalsQuery = defineQuery<{ stepId: string; prompt: string }[]>('pendingApprovals');`;

const APPROVAL_STATE = `  const decisions = new Map<string, ApprovalDecision & { at: string }>();
  const pending = new Map<string, string>();
  setHandler(approveSignal, (decision) => {
    decisions.set(decision.stepId, { ...decision, at: new Date().toISOString() });
  });
  setHandler(pendingApprovalsQuery, () => [...pending].map(([stepId, prompt]) => ({ stepId, prompt })));
`;

function childWorkflow(children: string[], exported: ReadonlySet<string>, self: string): string {
  const cases = children.map((id) => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the emitted TypeScript's own template literal.
    const workflowId = 'workflowId: `${workflowInfo().workflowId}/${id}`';
    const target = exported.has(id) || id === self ? camelId(id) : stringLiteral(camelId(id));
    return `case ${stringLiteral(id)}:\nreturn executeChild(${target}, { args: [input], ${workflowId} });`;
  });
  const note = children.some((id) => !exported.has(id) && id !== self)
    ? ' A flow not exported with this one is started by workflow type name: export it too, into the same worker.'
    : '';
  return `/** Runs a child flow as a child workflow, under an id derived from this run and the step.${note} */
function childWorkflow(flow: string, id: string, input: any): Promise<any> {
  switch (flow) {
${cases.join('\n')}
default:
throw failure(\`unknown child flow '\${flow}'\`);
  }
}`;
}
