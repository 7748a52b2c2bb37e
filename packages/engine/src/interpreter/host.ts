/**
 * The durable step protocol: the interpreter performs every side effect through a StepHost.
 * Everything that crosses this interface is plain JSON, so a host may run the call in the
 * same process (in-process runner), inside `step.run` (Inngest) or in an activity (Temporal).
 */
import type { RunEventInput } from '../events/events.ts';
import type { Json, JsonObject } from '../json.ts';

/** A message in the conversation, in the `ai` SDK's ModelMessage shape, kept as plain JSON. */
export type ModelMessage = JsonObject;

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the tool's arguments. */
  parameters: JsonObject;
}

/** One recorded model answer. Fixtures replace the provider with these, turn by turn. */
export interface FixtureTurn {
  text?: string;
  toolCalls?: { tool: string; args: Json }[];
  object?: Json;
  usage?: TokenUsage;
  /**
   * Replays the text as word-sized deltas spread over this many milliseconds (at most 60,000),
   * so a recorded turn streams at a model's pace in demos and tests; default: all at once.
   */
  streamMs?: number;
}

/** Recorded turns per `llm` step: keyed by the full step path ("each[2]/summarize") or the step id. */
export type Fixtures = Record<string, FixtureTurn[]>;

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface ModelTurnInput {
  /** "openai:gpt-4o-mini", "anthropic:…", "local:…", "mock:echo". */
  model: string;
  system?: string;
  messages: ModelMessage[];
  tools: ToolSpec[];
  /** JSON Schema for structured output. */
  schema?: JsonObject;
  /** The IR step id and the 1-based turn, so the executor can name what it streams. */
  stepId: string;
  turn: number;
  /** When present the executor returns this instead of calling the provider. */
  fixture?: FixtureTurn;
}

export interface ModelToolCall {
  id: string;
  tool: string;
  args: Json;
}

export interface ModelTurnOutput {
  text: string;
  object?: Json;
  toolCalls: ModelToolCall[];
  /** The assistant message(s) exactly as the model returned them, appended to the conversation. */
  responseMessages: ModelMessage[];
  usage: TokenUsage;
  finishReason: string;
}

export interface ToolCallInput {
  /** A tool registered by the host application, by name. */
  tool: string;
  args: Json;
}

export interface CodeCallInput {
  /** A JavaScript function body; it sees `args`, `input` and `steps`. Runs in the sandbox. */
  source: string;
  args: Json;
  input: Json;
  steps: Record<string, { output: Json }>;
}

export interface HttpCallInput {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Json;
  /**
   * Absent: the executor adds an `Idempotency-Key` header derived from the run id and the step
   * path (unless `headers` has one). false: it sends none.
   */
  idempotencyKey?: false;
}

export interface HttpCallOutput {
  status: number;
  headers: Record<string, string>;
  body: Json;
}

/** A checkpointed step is data, not a closure. */
export type StepCall =
  | { kind: 'model-turn'; input: ModelTurnInput }
  | { kind: 'tool'; input: ToolCallInput }
  | { kind: 'code'; input: CodeCallInput }
  | { kind: 'http'; input: HttpCallInput };

export type StepCallKind = StepCall['kind'];

export interface RetryPolicy {
  maxAttempts: number;
  backoff: 'fixed' | 'exponential';
  initialDelayMs: number;
  maxDelayMs: number;
}

/** How a host should run a call: retries and the per-attempt timeout come from the step. */
export interface CallPolicy {
  retry: RetryPolicy;
  timeoutMs?: number;
}

export interface ApprovalRequest {
  prompt: string;
  /** How long to wait; absent means forever. */
  timeoutMs?: number;
}

export type ApprovalOutcome =
  | { kind: 'decided'; approved: boolean; by: string | null; comment: string | null; at: string }
  | { kind: 'timed-out'; at: string };

export interface FlowRef {
  id: string;
  version?: number;
}

export interface StepHost {
  /** Checkpointed: the result is durable before it is returned; a replay returns the recorded one. */
  run(id: string, call: StepCall, policy: CallPolicy): Promise<Json>;
  waitForApproval(id: string, request: ApprovalRequest): Promise<ApprovalOutcome>;
  /** A durable timer; resolves with the ISO time it was due, which the journal keeps. */
  sleep(id: string, ms: number): Promise<{ until: string }>;
  /** Runs another flow as a child run and returns its output. */
  spawn(id: string, flow: FlowRef, input: Json): Promise<Json>;
  /** Not checkpointed: the host stamps, dedupes (by `eventKey`) and stores it. */
  emit(event: RunEventInput): void;
}

export function defaultRetry(maxAttempts = 1): RetryPolicy {
  return { maxAttempts, backoff: 'exponential', initialDelayMs: 1000, maxDelayMs: 60_000 };
}

/** Delay before attempt `attempt + 1` after attempt `attempt` (1-based) failed. */
export function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  const delay = policy.backoff === 'fixed' ? policy.initialDelayMs : policy.initialDelayMs * 2 ** (attempt - 1);
  return Math.min(delay, policy.maxDelayMs);
}
