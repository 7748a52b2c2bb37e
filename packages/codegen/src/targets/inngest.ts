/**
 * The `inngest` target: one module holding a plain Inngest function (inngest v4), runnable
 * without Weft. Its dependencies are `inngest`, and `ai` plus the `@ai-sdk/*` providers the
 * flow's models name. The module is
 *
 *   imports → client → `interface Input` → expression helpers → policies, types, orchestration
 *   → calls (model turn, http, code bodies) → `runFlow(input, durable)`, the steps in order →
 *   `export const <camelId> = inngest.createFunction({ id, triggers, retries }, handler)` + default
 *
 * The handler maps each durable operation onto Inngest: a checkpointed call is `step.run` (its
 * retries and timeout enforced per step by `withPolicy`: `RetryAfterError` with the step's
 * backoff, `NonRetriableError` once its attempts are spent); an approval is `step.waitForEvent`
 * for `weft/approval.decided` matched on run id and step id; sleep is `step.sleepUntil`; spawn is
 * `step.invoke` of the child's exported function (or a `referenceFunction` by id).
 */
import type { Flow } from '@weft/engine';
import { camelId, durableBody, header, inputType, runtimeSource } from '../emit/durable-module.ts';
import { callTypes, flowTypes, policiesSource } from '../emit/durable-runtime.ts';
import { docComment, stringLiteral } from '../emit/escape.ts';
import type { ExportFile, ExportOptions, ExportTarget } from './target.ts';

export const inngestTarget: ExportTarget = {
  name: 'inngest',
  emit: (flow, options) => inngestFiles(flow, options)[0]!.contents,
  emitFiles: inngestFiles,
};

/** The Inngest app id every exported flow shares, so a set of exports forms one app. */
export const INNGEST_APP_ID = 'weft-flows';

export function inngestFiles(flow: Flow, options: ExportOptions = {}): ExportFile[] {
  const body = durableBody(flow);
  const { module } = body;
  const name = camelId(flow.id);
  const maxAttempts = Math.max(1, ...[...module.policies.values()].map((policy) => policy.maxAttempts));
  const children = [...module.childFlows].sort();
  const exported = new Set(options.flows ?? []);
  const referenced = children.some((id) => !exported.has(id) && id !== flow.id);
  const fromInngest = ['Inngest', 'NonRetriableError'];
  if (module.policies.size > 0) fromInngest.push('RetryAfterError');
  if (referenced) fromInngest.push('referenceFunction');
  const imports = [
    ...body.imports,
    `import { ${fromInngest.sort().join(', ')} } from 'inngest';`,
    ...children
      .filter((id) => exported.has(id) && id !== flow.id)
      .map((id) => `import { ${camelId(id)} } from ${stringLiteral(`./${id}.js`)};`),
  ];
  const { ops, moduleLevel } = inngestOps(module.uses, module.codeFunctions.keys(), children, exported, flow.id);
  const parts = [
    header(flow, 'an Inngest function (inngest v4)', module, [
      `Start a run by sending the event 'weft/${flow.id}.run' with the run input as its data.`,
      ...(module.uses.has('approval')
        ? [
            "Approvals: the run sends 'weft/approval.requested' and waits for 'weft/approval.decided'",
            'with data { runId, stepId, approved, by?, comment? }.',
          ]
        : []),
    ]),
    imports.join('\n'),
    [
      '// Talks to the Inngest Dev Server when INNGEST_DEV=1, else to Inngest Cloud (INNGEST_SIGNING_KEY, INNGEST_EVENT_KEY).',
      "// checkpointing: false — with SDK v4's default checkpointing the Inngest Dev Server (v1.12.1) leaves runs",
      "// 'Running' (a step's result never resumes the function, nor a child's a parent's step.invoke);",
      '// step-by-step execution works on the dev server and in the cloud alike.',
      `export const inngest = new Inngest({ id: ${stringLiteral(INNGEST_APP_ID)}, checkpointing: false });`,
    ].join('\n'),
    inputType(flow),
    callTypes(module, false),
    policiesSource(module),
    flowTypes(module),
    `/** The error that fails the run (or a call) without retrying: a \`fail\` step, a bad value. */\nfunction failure(message: string): Error {\n  return new NonRetriableError(message);\n}\nconst nonRetryable = failure;`,
    module.policies.size > 0 ? WITH_POLICY : '',
    body.orchestration,
    body.executors,
    ...moduleLevel,
    body.runFlow,
    `${docComment(`'${flow.name}' as an Inngest function.`)}
export const ${name} = inngest.createFunction(
  {
    id: ${stringLiteral(flow.id)},
    name: ${stringLiteral(flow.name)},
    triggers: [{ event: ${stringLiteral(`weft/${flow.id}.run`)} }],
    // The most attempts any step allows; withPolicy stops each step at its own count.
    retries: ${Math.min(20, maxAttempts - 1)},
  },
  async ({ event, step, attempt${module.uses.has('approval') || module.uses.has('http') ? ', runId' : ''} }) => {
    // Each durable operation of the flow as Inngest steps.
    const durable: Durable = {
${ops.join('\n')}
    };
    try {
      return await runFlow(event.data as Input, durable);
    } catch (error) {
      // Calls retry inside their own step; whatever reaches here fails the run, as it does in Weft.
      throw error instanceof NonRetriableError ? error : new NonRetriableError(errorMessage(error), { cause: error });
    }
  },
);

export default ${name};`,
  ];
  // The helpers last: printing the rest is what tells which ones are used.
  parts.splice(4, 0, runtimeSource(module));
  return [{ path: `${flow.id}.ts`, contents: parts.filter((part) => part.trim() !== '').join('\n\n') }];
}

const WITH_POLICY = `/**
 * Runs one attempt of a checkpointed call inside its step.run under the step's policy: the
 * timeout aborts the attempt; a failure is retried after the step's backoff (RetryAfterError)
 * until its attempts are spent, then fails the step (NonRetriableError).
 */
async function withPolicy<T>(name: PolicyName, attempt: number, call: (signal?: AbortSignal) => Promise<T>): Promise<T> {
  const policy: Policy = POLICIES[name];
  try {
    if (policy.timeoutMs === undefined) return await call();
    const signal = AbortSignal.timeout(policy.timeoutMs);
    const timedOut = new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(new Error(\`timed out after \${policy.timeoutMs}ms\`))),
    );
    return await Promise.race([call(signal), timedOut]);
  } catch (error) {
    const message = errorMessage(error);
    if (error instanceof NonRetriableError || attempt + 1 >= policy.maxAttempts) {
      throw new NonRetriableError(message, { cause: error });
    }
    const delay = policy.backoff === 'fixed' ? policy.initialDelayMs : policy.initialDelayMs * 2 ** attempt;
    throw new RetryAfterError(message, Math.min(delay, policy.maxDelayMs), { cause: error });
  }
}`;

function inngestOps(
  uses: ReadonlySet<string>,
  codeNames: Iterable<string>,
  children: string[],
  exported: ReadonlySet<string>,
  self: string,
): { ops: string[]; moduleLevel: string[] } {
  const ops: string[] = [];
  const moduleLevel: string[] = [];
  const run = (call: string) => `step.run(id, () => withPolicy(policy, attempt, ${call})) as Promise<any>`;
  if (uses.has('modelTurn'))
    ops.push(`modelTurn: (id, policy, request) => ${run('(signal) => modelTurn(request, signal)')},`);
  if (uses.has('http'))
    ops.push(
      `http: (id, policy, request) => ${run('(signal) => httpRequest(request, { runId, stepId: id }, signal)')},`,
    );
  if (uses.has('code')) {
    const names = [...codeNames];
    moduleLevel.push(
      `const CODE: Record<CodeName, (args: any, input: any, steps: any) => Promise<any>> = { ${names.join(', ')} };`,
    );
    ops.push(`code: (id, policy, name, args, input, steps) => ${run('() => CODE[name](args, input, steps)')},`);
  }
  if (uses.has('hostTool')) {
    moduleLevel.push(`/** Tools the Weft host application registered: they are not part of the flow, implement them here. */
const HOST_TOOLS: Record<string, (args: any) => Promise<any>> = {};`);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the emitted TypeScript's own template literal.
    const missing = "throw new NonRetriableError(`unknown tool '${name}'`);";
    const call = `async () => {\n  const tool = Object.hasOwn(HOST_TOOLS, name) ? HOST_TOOLS[name] : undefined;\n  if (!tool) ${missing}\n  return tool(args);\n}`;
    ops.push(`hostTool: (id, policy, name, args) =>\n  ${run(call)},`);
  }
  if (uses.has('approval')) {
    ops.push(`approval: async (id, request) => {
  await step.sendEvent(\`\${id}/requested\`, {
    name: 'weft/approval.requested',
    data: { runId, stepId: id, prompt: request.prompt, timeoutMs: request.timeoutMs ?? null },
  });
  const decision = await step.waitForEvent(id, {
    event: 'weft/approval.decided',
    timeout: request.timeoutMs ?? '365d',
    if: \`async.data.runId == \${JSON.stringify(runId)} && async.data.stepId == \${JSON.stringify(id)}\`,
  });
  if (decision !== null) {
    const { approved, by, comment } = decision.data;
    return { approved: approved === true, by: by ?? null, comment: comment ?? null, at: new Date(decision.ts).toISOString() };
  }
  if (request.onTimeout === 'fail') throw new NonRetriableError(\`approval timed out after \${request.timeout}\`);
  const at = await step.run(\`\${id}/timed-out\`, () => new Date().toISOString());
  return { approved: request.onTimeout === 'approve', by: 'timeout', comment: null, at };
},`);
  }
  if (uses.has('sleep')) {
    ops.push(`sleep: async (id, ms) => {
  // The due time is checkpointed, so a replay sleeps until the same moment.
  const until = await step.run(\`\${id}/until\`, () => new Date(Date.now() + ms).toISOString());
  await step.sleepUntil(id, until);
  return { until };
},`);
  }
  if (uses.has('spawn')) {
    const cases = children.map((id) => {
      const target =
        exported.has(id) || id === self
          ? camelId(id)
          : `referenceFunction({ appId: ${stringLiteral(INNGEST_APP_ID)}, functionId: ${stringLiteral(id)} })`;
      return `case ${stringLiteral(id)}:\nreturn ${target};`;
    });
    const note = children.some((id) => !exported.has(id) && id !== self)
      ? ' A flow not exported with this one is referenced by id: export it too, into the same app.'
      : '';
    moduleLevel.push(`/** The Inngest function of a child flow.${note} */
function childFunction(flow: string): any {
  switch (flow) {
${cases.join('\n')}
default:
throw new NonRetriableError(\`unknown child flow '\${flow}'\`);
  }
}`);
    ops.push(
      'spawn: (id, flow, input) => step.invoke(id, { function: childFunction(flow), data: input }) as Promise<any>,',
    );
  }
  return { ops, moduleLevel };
}
