/**
 * The Inngest and Temporal targets' distinctive parts: how approvals, retry policies, spawns,
 * sleeps and secrets map onto each backend, and the multi-file API.
 */
import { type Flow, validateFlow } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { annotateParameters } from './emit/code-params.ts';
import { exportFlow, exportFlowFiles } from './export-flow.ts';

function flow(raw: Record<string, unknown>): Flow {
  const result = validateFlow({ irVersion: 1, id: 'demo', name: 'Demo', ...raw }, { hostTools: ['lookup'] });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.flow;
}

/** The export's text with whitespace runs and trailing commas gone, so checks don't depend on line breaks. */
async function text(source: Flow, target: 'inngest' | 'temporal', flows?: string[]): Promise<string> {
  const files = await exportFlowFiles(source, target, flows === undefined ? {} : { flows });
  return norm(files.map((file) => `// ---- ${file.path}\n${file.contents}`).join('\n'));
}

function norm(source: string): string {
  return source
    .replace(/\s+/g, ' ')
    .replace(/,\s*([)}\]])/g, '$1')
    .replace(/([({[])\s+/g, '$1')
    .replace(/\s+([)}\]])/g, '$1');
}

function expectIn(out: string, snippet: string): void {
  expect(out).toContain(norm(snippet));
}

const approval = flow({
  steps: [{ id: 'gate', type: 'approval', prompt: 'Ship {{ input.version }}?', timeout: '2h', onTimeout: 'approve' }],
});

const retried = flow({
  steps: [
    {
      id: 'submit',
      type: 'http',
      method: 'POST',
      url: 'https://api.example.com/jobs',
      body: { a: 1 },
      retry: { maxAttempts: 4, backoff: 'fixed', initialDelay: '20ms' },
      timeout: '5s',
    },
    { id: 'plain', type: 'code', source: 'return 1;' },
  ],
});

const spawner = flow({
  steps: [{ id: 'child', type: 'spawn', flow: 'summarize-text@2', input: { text: '=input.text' } }],
});

describe('approvals', () => {
  it('inngest: announces the request and waits for weft/approval.decided matched on run id and step id', async () => {
    const out = await text(approval, 'inngest');
    expectIn(
      out,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the emitted TypeScript's own template literal.
      "durable.approval('gate', { prompt: template`Ship ${input.version}?`, timeout: '2h', timeoutMs: 7200000, onTimeout: 'approve'})",
    );
    expectIn(out, "name: 'weft/approval.requested'");
    expectIn(out, "step.waitForEvent(id, {event: 'weft/approval.decided', timeout: request.timeoutMs ?? '365d',");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the emitted TypeScript's own template literal.
    expectIn(out, 'if: `async.data.runId == ${JSON.stringify(runId)} && async.data.stepId == ${JSON.stringify(id)}`');
    expectIn(out, "by: 'timeout'");
  });

  it("temporal: the 'approve' signal and condition() with the step's timeout", async () => {
    const out = await text(approval, 'temporal');
    expectIn(out, "export const approveSignal = defineSignal<[ApprovalDecision]>('approve');");
    expectIn(out, 'setHandler(approveSignal, (decision) =>');
    expectIn(out, 'else timedOut = !(await condition(decided, request.timeoutMs));');
    expectIn(out, "defineQuery<{ stepId: string; prompt: string }[]>('pendingApprovals')");
    // No activity is needed for an approval-only flow.
    expect(out).not.toContain('proxyActivities');
  });
});

describe('retry policies', () => {
  it("inngest: each step's policy, enforced in its step.run; the function allows the most attempts", async () => {
    const out = await text(retried, 'inngest');
    expectIn(
      out,
      "submit: {maxAttempts: 4, backoff: 'fixed', initialDelayMs: 20, maxDelayMs: 60000, timeoutMs: 5000},",
    );
    expectIn(out, "DEFAULT: {maxAttempts: 1, backoff: 'exponential', initialDelayMs: 1000, maxDelayMs: 60000}");
    expectIn(out, "durable.http('submit', 'submit', {method: 'POST'");
    expectIn(out, "durable.code('plain', 'DEFAULT', 'plainCode', {}, input, steps)");
    expectIn(out, 'retries: 3');
    expectIn(
      out,
      'step.run(id, () => withPolicy(policy, attempt, (signal) => httpRequest(request, { runId, stepId: id }, signal)))',
    );
    expectIn(out, 'throw new RetryAfterError(message, Math.min(delay, policy.maxDelayMs), {cause: error});');
  });

  it("temporal: each policy is an activity proxy with the step's RetryPolicy and startToCloseTimeout", async () => {
    const out = await text(retried, 'temporal');
    expectIn(
      out,
      'submit: proxyActivities<typeof activities>({startToCloseTimeout: 5000, retry: {maximumAttempts: 4, initialInterval: 20, backoffCoefficient: 1, maximumInterval: 60000}}),',
    );
    expectIn(
      out,
      "DEFAULT: proxyActivities<typeof activities>({startToCloseTimeout: '1 hour', retry: {maximumAttempts: 1, initialInterval: 1000, backoffCoefficient: 2, maximumInterval: 60000}})",
    );
    expectIn(
      out,
      'http: (id, policy, request) => CALLS[policy].httpRequest(request, { runId: workflowInfo().runId, stepId: id }),',
    );
    expectIn(out, 'export async function plainCode(args: any, input: any, steps: any): Promise<any> {');
  });

  it('llm and http steps try three times by default, as in the interpreter', async () => {
    const out = await text(flow({ steps: [{ id: 'ask', type: 'llm', model: 'mock:echo', prompt: 'hi' }] }), 'inngest');
    expectIn(out, "RETRIED: {maxAttempts: 3, backoff: 'exponential', initialDelayMs: 1000, maxDelayMs: 60000}");
    expectIn(out, "runLlm(durable, 'ask', 'RETRIED', {model: 'mock:echo', prompt: 'hi'})");
  });
});

describe('spawn', () => {
  it('inngest: step.invoke of the child export when exported together, else a reference by id', async () => {
    const together = await text(spawner, 'inngest', ['demo', 'summarize-text']);
    expectIn(together, "import { summarizeText } from './summarize-text.js';");
    expectIn(together, "case 'summarize-text': return summarizeText;");
    expectIn(together, 'step.invoke(id, {function: childFunction(flow), data: input})');
    expectIn(together, "durable.spawn('child', 'summarize-text', {text: input.text})");
    const alone = await text(spawner, 'inngest');
    expectIn(alone, "referenceFunction({appId: 'weft-flows', functionId: 'summarize-text'})");
    expect(alone).not.toContain('./summarize-text.js');
  });

  it('temporal: executeChild of the child workflow, with an id derived from the run and step', async () => {
    const together = await text(spawner, 'temporal', ['demo', 'summarize-text']);
    expectIn(together, "import { summarizeText } from './summarize-text.workflow.js';");
    expectIn(
      together,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the emitted TypeScript's own template literal.
      'executeChild(summarizeText, {args: [input], workflowId: `${workflowInfo().workflowId}/${id}`});',
    );
    const alone = await text(spawner, 'temporal');
    expectIn(alone, "executeChild('summarizeText', {args: [input]");
  });
});

describe('containers and sleep', () => {
  const nested = flow({
    steps: [
      {
        id: 'each',
        type: 'map',
        items: '=input.items',
        concurrency: 3,
        steps: [
          { id: 'nap', type: 'sleep', duration: '5s' },
          { id: 'twice', type: 'transform', value: '=item * 2' },
        ],
      },
      {
        id: 'fan',
        type: 'parallel',
        branches: { a: [{ id: 'one', type: 'transform', value: 1 }], b: [] },
      },
    ],
  });

  it('builds the interpreter step paths and runs map/parallel in child scopes', async () => {
    const out = await text(nested, 'inngest');
    expectIn(out, "await runMap(steps, 'each', input.items, 3, async (steps, at, item, index) => {");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the emitted TypeScript's own template literal.
    expectIn(out, 'durable.sleep(`${at}nap`, 5000 /* 5s */)');
    expectIn(out, 'return steps.twice.output;');
    expectIn(
      out,
      "await runParallel(steps, 'fan', {a: async (steps, at) => {steps.one = {output: 1}; return steps.one.output;}, b: async (steps, at) => {return null;}})",
    );
    expectIn(out, 'await step.sleepUntil(id, until);');
    const temporal = await text(nested, 'temporal');
    expectIn(temporal, 'await sleep(ms);');
  });

  it('a loop condition that starts with `{` is an object in parentheses, not a block', async () => {
    const loop = flow({
      steps: [{ id: 'again', type: 'loop', while: '={ n: iteration }.n < 2', maxIterations: 3, steps: [] }],
    });
    for (const target of ['inngest', 'temporal'] as const)
      expectIn(await text(loop, target), '(steps, iteration) => ({n: iteration}).n < 2');
  });
});

describe('files and secrets', () => {
  const secret = flow({
    steps: [
      {
        id: 'call',
        type: 'http',
        url: 'https://api.example.com',
        headers: { Authorization: 'Bearer sk-live-123', accept: 'application/json' },
      },
    ],
  });

  it('never writes a literal credential: the call reads it from process.env where it runs', async () => {
    for (const target of ['inngest', 'temporal'] as const) {
      const out = await text(secret, target);
      expect(out).not.toContain('sk-live-123');
      expectIn(out, "secretHeaders: {Authorization: 'CALL_AUTHORIZATION'}");
      expectIn(out, 'set CALL_AUTHORIZATION in the environment');
      expectIn(out, "headers.set(name, process.env[variable] ?? '')");
    }
  });

  it('temporal is a workflow file and an activities file; exportFlow returns the workflow', async () => {
    const files = await exportFlowFiles(secret, 'temporal');
    expect(files.map((file) => file.path)).toEqual(['demo.workflow.ts', 'demo.activities.ts']);
    expect(files[0]!.contents).not.toContain('process.env');
    expect(files[0]!.contents).toContain("import type * as activities from './demo.activities.js';");
    expect(await exportFlow(secret, 'temporal')).toBe(files[0]!.contents);
    expect((await exportFlowFiles(secret, 'inngest')).map((file) => file.path)).toEqual(['demo.ts']);
    expect((await exportFlowFiles(secret, 'weft')).map((file) => file.path)).toEqual(['demo.ts']);
  });

  it('a flow with only mock models needs no model SDK', async () => {
    const out = await text(flow({ steps: [{ id: 'ask', type: 'llm', model: 'mock:echo', prompt: 'hi' }] }), 'inngest');
    expect(out).not.toContain("from 'ai'");
    expectIn(out, 'function mockTurn(request: ModelTurnRequest): ModelTurn {');
    expectIn(out, 'export const demo = inngest.createFunction(');
    expectIn(out, "triggers: [{ event: 'weft/demo.run' }],");
    expectIn(out, 'export default demo;');
  });
});

describe('host tools', () => {
  it('a tool the Weft host registered becomes a stub to fill in, called as a checkpoint', async () => {
    const hosted = flow({ steps: [{ id: 'look', type: 'tool', tool: 'lookup', args: { q: '=input.q' } }] });
    const inngest = await text(hosted, 'inngest');
    expectIn(inngest, 'const HOST_TOOLS: Record<string, (args: any) => Promise<any>> = {};');
    expectIn(inngest, "runTool(durable, 'look', 'DEFAULT', 'lookup', {q: input.q}, input)");
    const temporal = await text(hosted, 'temporal');
    expectIn(temporal, 'export async function hostTool(name: string, args: any): Promise<any> {');
    expectIn(temporal, 'hostTool: (_id, policy, name, args) => CALLS[policy].hostTool(name, args)');
  });
});

describe('annotateParameters', () => {
  it('types untyped parameters as any and leaves everything else alone', () => {
    expect(annotateParameters('return args.xs.map((x, i) => x + i).filter(y => y > 1);')).toBe(
      'return args.xs.map((x: any, i: any) => x + i).filter((y: any) => y > 1);',
    );
    expect(annotateParameters('function f({ a }, b = 1, ...rest) { return a + b; }\nreturn f(args);')).toBe(
      'function f({ a }: any, b = 1, ...rest: any) { return a + b; }\nreturn f(args);',
    );
    expect(annotateParameters('const n = 1;\nreturn n;')).toBe('const n = 1;\nreturn n;');
  });
});
