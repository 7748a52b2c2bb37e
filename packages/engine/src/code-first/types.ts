/**
 * The types of the code-first API. Config objects mirror the IR step configs field for field
 * (that is what makes TS export and import a one-to-one mapping), but hold real values where
 * the IR holds expressions, and functions where the IR holds nested step lists.
 */
/* biome-ignore-all lint/suspicious/noExplicitAny: step outputs and flow data are JSON of a shape only the flow knows; `any` lets a flow read into them as freely as an expression can. */
import type { HttpCallOutput } from '../interpreter/host.ts';
import type { FlowTool } from '../ir/flow.ts';
import type { Json, JsonObject } from '../json.ts';
import type { CodeFunction } from './code-source.ts';

export interface LlmOutput {
  text: string;
  object?: any;
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

/** What every step may carry, as in the IR. */
export interface StepOptions {
  name?: string;
  retry?: { maxAttempts: number; backoff?: 'fixed' | 'exponential'; initialDelay?: string; maxDelay?: string };
  timeout?: string;
}

/**
 * The outputs visible where a body runs: `steps.<id>.output`, as an expression reads them.
 * `any`, not a record: which ids exist depends on the flow, and reading one that has not run
 * fails at run time exactly as the expression would.
 */
export type StepOutputs = any;

/** What a body (the flow itself, a branch arm, a parallel branch, a map or loop iteration) receives. */
export interface BodyContext {
  input: any;
  step: FlowSteps;
  steps: StepOutputs;
}
export interface MapBodyContext extends BodyContext {
  item: any;
  index: number;
}
export interface LoopBodyContext extends BodyContext {
  iteration: number;
}
/** A nested list of steps, written as a function. Its return value is the container's output. */
export type Body<C extends BodyContext = BodyContext> = (context: C) => Promise<unknown> | unknown;

export interface LlmConfig extends StepOptions {
  model: string;
  system?: string;
  prompt?: string;
  messages?: readonly unknown[];
  tools?: string[];
  maxSteps?: number;
  schema?: JsonObject;
}
export interface ToolConfig extends StepOptions {
  tool: string;
  args?: Record<string, unknown>;
}
export interface CodeConfig extends StepOptions {
  /** A function (its body runs in the sandbox) or the body as a string. */
  source: CodeFunction | string;
  args?: Record<string, unknown>;
}
export interface HttpConfig extends StepOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
}
export interface TransformConfig extends StepOptions {
  value: unknown;
}
export interface BranchConfig extends StepOptions {
  /** `when` is a function so that, as in the IR, only the cases up to the first true one are evaluated. */
  cases: { when: () => unknown; steps: Body }[];
  else?: Body;
}
export interface ParallelConfig extends StepOptions {
  branches: Record<string, Body>;
}
export interface MapConfig extends StepOptions {
  items: readonly unknown[];
  /** The item's name in the flow's expressions (IR `as`); the body receives it as `item` either way. */
  as?: string;
  concurrency?: number;
  steps: Body<MapBodyContext>;
}
/** What `while` sees: the previous iteration's outputs (none before the first) and the index about to run. */
export interface LoopCondition {
  input: any;
  steps: StepOutputs;
  iteration: number;
}
export interface LoopConfig extends StepOptions {
  while: (state: LoopCondition) => unknown;
  maxIterations?: number;
  steps: Body<LoopBodyContext>;
}
export interface ApprovalConfig extends StepOptions {
  prompt: string;
  onTimeout?: 'reject' | 'approve' | 'fail';
}
export interface SpawnConfig extends StepOptions {
  flow: string;
  input?: Record<string, unknown>;
}
export interface SleepConfig extends StepOptions {
  duration: string;
}
export interface FailConfig extends StepOptions {
  message: string;
}

/** One method per IR step type; the id is the IR step id. */
export interface FlowSteps {
  llm(id: string, config: LlmConfig): Promise<LlmOutput>;
  tool(id: string, config: ToolConfig): Promise<any>;
  tool(id: string, tool: string, args?: Record<string, unknown>): Promise<any>;
  code(id: string, config: CodeConfig): Promise<any>;
  code(id: string, source: CodeFunction | string, args?: Record<string, unknown>): Promise<any>;
  http(id: string, request: HttpConfig): Promise<HttpCallOutput>;
  transform(id: string, config: TransformConfig): Promise<any>;
  branch(id: string, config: BranchConfig): Promise<any>;
  parallel(id: string, config: ParallelConfig): Promise<Record<string, any>>;
  map(id: string, config: MapConfig): Promise<any[]>;
  loop(id: string, config: LoopConfig): Promise<any>;
  approval(id: string, config: ApprovalConfig): Promise<ApprovalOutput>;
  spawn(id: string, config: SpawnConfig): Promise<any>;
  spawn(id: string, flow: string, input?: Record<string, unknown>): Promise<any>;
  sleep(id: string, config: SleepConfig | string): Promise<{ until: string }>;
  fail(id: string, config: FailConfig | string): Promise<never>;
}

/** The flow document's fields other than its steps and output (which the function is). */
export interface FlowMeta {
  id: string;
  name?: string;
  description?: string;
  version?: number;
  /** JSON Schema of the run input. */
  input?: JsonObject;
  tools?: Record<string, FlowTool>;
}
