/**
 * The orchestration runtime that the Inngest and Temporal targets write into their modules, as
 * source text: the types the flow body works with, the retry policies, the `Durable` interface
 * each target implements, and `runParallel`/`runMap`/`runLoop`/`runLlm`/`runTool`, which follow
 * the interpreter's handlers (steps/*.ts). Only what the flow uses is written. This is the
 * deterministic half (it runs inside a Temporal workflow); the calls themselves are in
 * durable-executors.ts. `runLlm` and `runTool` are written by durable-llm.ts.
 */
import { llmSource, toolsSource, toolUse } from './durable-llm.ts';
import type { DurableModule, DurableOp, RetryPolicy } from './durable-steps.ts';
import { propertyKey, stringLiteral } from './escape.ts';
import { jsonLiteral } from './values.ts';

/** Types of the data that crosses into a call (activities file for Temporal). */
export function callTypes(module: DurableModule, exported: boolean): string {
  const x = exported ? 'export ' : '';
  const parts = [
    `/** Retries and the per-attempt timeout of a checkpointed call, from its flow step. */
${x}interface Policy {
  maxAttempts: number;
  backoff: 'fixed' | 'exponential';
  initialDelayMs: number;
  maxDelayMs: number;
  timeoutMs?: number;
}`,
  ];
  if (module.uses.has('modelTurn') || module.toolNames.size > 0) {
    parts.push(`${x}interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, any>;
}`);
  }
  if (module.uses.has('modelTurn')) {
    parts.push(`${x}interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** One model call: the conversation so far, the tools offered, an optional output schema. */
${x}interface ModelTurnRequest {
  model: string;
  system?: string;
  messages: any[];
  tools: ToolSpec[];
  schema?: Record<string, any>;
}

/** One model answer; \`responseMessages\` are appended to the conversation as returned. */
${x}interface ModelTurn {
  text: string;
  object?: any;
  toolCalls: { id: string; tool: string; args: any }[];
  responseMessages: any[];
  usage: Usage;
  finishReason: string;
}`);
  }
  if (module.uses.has('http')) {
    parts.push(`${x}interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Header name → environment variable: credentials are read where the request is made. */
  secretHeaders?: Record<string, string>;
  body?: any;
  /** false: no Idempotency-Key header (the step opted out). */
  idempotencyKey?: false;
}

${x}interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}`);
  }
  return parts.join('\n\n');
}

export function policiesSource(module: DurableModule): string {
  if (module.policies.size === 0) return '';
  const entries = [...module.policies].map(([name, policy]) => `${propertyKey(name)}: ${policyLiteral(policy)},`);
  return `/** Retry and timeout of each step's calls, as the flow says (llm and http steps try 3 times by default). */
const POLICIES = {
${entries.join('\n')}
} satisfies Record<string, Policy>;
type PolicyName = keyof typeof POLICIES;`;
}

export function policyLiteral(policy: RetryPolicy): string {
  return jsonLiteral(policy);
}

const OP_SIGNATURES: Record<DurableOp, string> = {
  modelTurn: 'modelTurn(id: string, policy: PolicyName, request: ModelTurnRequest): Promise<ModelTurn>;',
  http: 'http(id: string, policy: PolicyName, request: HttpRequest): Promise<HttpResponse>;',
  code: 'code(id: string, policy: PolicyName, name: CodeName, args: any, input: any, steps: Steps): Promise<any>;',
  hostTool: 'hostTool(id: string, policy: PolicyName, name: string, args: any): Promise<any>;',
  approval: 'approval(id: string, request: ApprovalRequest): Promise<ApprovalOutput>;',
  sleep: 'sleep(id: string, ms: number): Promise<{ until: string }>;',
  spawn: 'spawn(id: string, flow: string, input: any): Promise<any>;',
};

/** Types the flow body works with, and the `Durable` interface the target implements. */
export function flowTypes(module: DurableModule): string {
  const parts = [
    `/** Each step's output, by step id, as the flow's expressions read it: \`steps.<id>.output\`. */
type Steps = Record<string, { output: any }>;`,
  ];
  if (module.uses.has('code')) {
    parts.push(`type CodeName = ${[...module.codeFunctions.keys()].map((name) => stringLiteral(name)).join(' | ')};`);
  }
  if (module.uses.has('modelTurn')) {
    parts.push(`interface LlmConfig {
  model: string;
  system?: string;
  /** Earlier messages, e.g. another llm step's \`output.messages\`. */
  messages?: unknown;
  prompt?: string;
  tools?: string[];
  maxSteps?: number;
  schema?: Record<string, any>;
}

/** An llm step's output, as in Weft: the whole conversation, every tool call and the summed usage. */
interface LlmOutput {
  text: string;
  object?: any;
  messages: any[];
  toolCalls: { id: string; tool: string; args: any; result: any }[];
  usage: Usage;
  finishReason: string;
}`);
  }
  if (module.uses.has('approval')) {
    parts.push(`interface ApprovalRequest {
  prompt: string;
  timeout?: string;
  timeoutMs?: number;
  onTimeout: 'reject' | 'approve' | 'fail';
}

interface ApprovalOutput {
  approved: boolean;
  by: string | null;
  comment: string | null;
  at: string;
}`);
  }
  const ops = (['modelTurn', 'http', 'code', 'hostTool', 'approval', 'sleep', 'spawn'] as const).filter((op) =>
    module.uses.has(op),
  );
  parts.push(`/** Everything the flow does that must be durable. Ids are the step paths Weft uses. */
interface Durable {
${ops.map((op) => OP_SIGNATURES[op]).join('\n')}
}`);
  return parts.join('\n\n');
}

/** `runParallel`/`runMap`/`runLoop`/`runLlm`/`runTool`, as far as the body uses them. */
export function orchestration(module: DurableModule, body: string): string {
  const parts: string[] = [];
  const uses = (name: string) => body.includes(`${name}(`);
  const settle = uses('runParallel') || uses('runMap') || (module.uses.has('modelTurn') && toolUse(module));
  if (settle) {
    parts.push(`/** Like Promise.all, but every promise settles before the first failure is thrown (as in Weft). */
async function settleAll<T>(promises: Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<T>).value);
}`);
  }
  if (uses('runParallel')) {
    parts.push(`/** parallel: each branch in its own copy of the scope; afterwards every branch's outputs are visible. */
async function runParallel(
  steps: Steps,
  id: string,
  branches: Record<string, (steps: Steps, at: string) => Promise<any>>,
): Promise<Record<string, any>> {
  const names = Object.keys(branches);
  const scopes = names.map((): Steps => ({ ...steps }));
  const outputs = await settleAll(names.map((name, i) => branches[name]!(scopes[i]!, \`\${id}.\${name}/\`)));
  for (const scope of scopes) Object.assign(steps, scope);
  return Object.fromEntries(names.map((name, i) => [name, outputs[i]]));
}`);
  }
  if (uses('runMap')) {
    parts.push(`/** map: runs the steps once per item, \`concurrency\` at a time, each in its own scope. Output: each iteration's last output. */
async function runMap(
  steps: Steps,
  id: string,
  items: unknown,
  concurrency: number,
  body: (steps: Steps, at: string, item: any, index: number) => Promise<any>,
): Promise<any[]> {
  if (!Array.isArray(items)) throw failure(\`map items must be an array, got \${items === null ? 'null' : typeof items}\`);
  if (items.length > 10_000) throw failure(\`map over \${items.length} items exceeds 10000\`);
  const results: any[] = new Array(items.length).fill(null);
  let next = 0;
  let stop = false;
  // A fixed pool of workers taking the next index: ids depend only on the index.
  const worker = async (): Promise<void> => {
    while (!stop && next < items.length) {
      const index = next++;
      try {
        results[index] = await body({ ...steps }, \`\${id}[\${index}]/\`, items[index], index);
      } catch (error) {
        stop = true;
        throw error;
      }
    }
  };
  await settleAll(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}`);
  }
  if (uses('runLoop')) {
    parts.push(`/**
 * loop: runs the steps while \`condition\` holds, at most \`maxIterations\` times. The condition sees the
 * previous iteration's outputs and the index of the iteration about to run. Output: the last iteration's.
 */
async function runLoop(
  steps: Steps,
  id: string,
  maxIterations: number,
  condition: (steps: Steps, iteration: number) => unknown,
  body: (steps: Steps, at: string, iteration: number) => Promise<any>,
): Promise<any> {
  let previous = steps;
  let output: any = null;
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    if (!condition(previous, iteration)) break;
    const scope: Steps = { ...steps };
    output = await body(scope, \`\${id}[\${iteration}]/\`, iteration);
    previous = scope;
  }
  return output;
}`);
  }
  if (module.uses.has('modelTurn')) parts.push(llmSource(module));
  const tools = toolsSource(module);
  if (tools !== '') parts.push(tools);
  return parts.join('\n\n');
}

export const ERROR_MESSAGE_SOURCE = `function errorMessage(error: unknown): string {
  // Temporal and Inngest wrap a failed call's error: the innermost message is the one that says why.
  let current: any = error;
  while (current?.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}`;
