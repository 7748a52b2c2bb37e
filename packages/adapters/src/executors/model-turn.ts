/**
 * The `model-turn` call: exactly one model call. Tools are offered without `execute` and the
 * SDK stops after one step, because each tool call is its own checkpointed step that the
 * interpreter runs next; the SDK's own retries are off because the host owns retries.
 */

import {
  type Json,
  type ModelTurnInput,
  type ModelTurnOutput,
  NonRetryableError,
  type TokenUsage,
  type ToolSpec,
  toJson,
  WeftError,
} from '@weft/engine';
import {
  APICallError,
  InvalidPromptError,
  type JSONSchema7,
  jsonSchema,
  LoadAPIKeyError,
  type ModelMessage,
  Output,
  type StreamTextEndEvent,
  stepCountIs,
  streamText,
  type Tool,
  type ToolSet,
  tool,
  UnsupportedFunctionalityError,
} from 'ai';
import { DeltaBatcher } from './delta-batcher.ts';
import { fixtureTurn } from './fixture-turn.ts';
import { createModelDownload } from './model-download.ts';
import { type ResolvedModel, redact } from './providers.ts';
import type { ExecutorContext, ExecutorDeps } from './types.ts';

/** At most one `emitDelta` per this many milliseconds. */
export const DELTA_INTERVAL_MS = 50;

/** A provider failure worth retrying (HTTP 5xx/429, network, timeout, unparseable output). */
export class ModelCallError extends WeftError {
  override readonly code = 'model_call';
  readonly provider: string;
  readonly model: string;
  constructor(resolved: Pick<ResolvedModel, 'provider' | 'modelId'>, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.provider = resolved.provider;
    this.model = resolved.modelId;
  }
}

export async function executeModelTurn(input: ModelTurnInput, ctx: ExecutorContext, deps: ExecutorDeps): Promise<Json> {
  if (input.fixture) return (await fixtureTurn(input, ctx)) as unknown as Json;
  const resolved = await deps.models.resolve(input.model);
  const batcher = new DeltaBatcher((text) => ctx.emitDelta(text), DELTA_INTERVAL_MS);
  try {
    const output = await callModel(input, resolved, ctx, deps, batcher);
    return output as unknown as Json;
  } catch (error) {
    throw describeError(error, input.model, resolved, ctx.signal);
  } finally {
    batcher.flush();
  }
}

async function callModel(
  input: ModelTurnInput,
  resolved: ResolvedModel,
  ctx: ExecutorContext,
  deps: ExecutorDeps,
  batcher: DeltaBatcher,
): Promise<ModelTurnOutput> {
  const tools = toSdkTools(input.tools ?? []);
  // The turn's result is taken from onEnd, not from the result's promises: each of those
  // (text, toolCalls, usage…) replays the whole stream through another tee of web streams, and
  // five of them cost several times the SDK's own turn.
  let ended: StreamTextEndEvent<ToolSet> | undefined;
  const result = streamText({
    model: resolved.model,
    // `system` still works in v7 but is deprecated in favour of `instructions`.
    instructions: input.system || undefined,
    messages: input.messages as unknown as ModelMessage[],
    // A conversation carried over from an earlier step may hold system messages; v7 rejects
    // them by default.
    allowSystemInMessages: true,
    tools,
    stopWhen: stepCountIs(1),
    maxRetries: 0,
    abortSignal: ctx.signal,
    // File and image URLs in the messages come from whoever wrote them (a chat user, a flow's
    // input): fetched through the http step's guard, with a size cap and a time limit.
    experimental_download: createModelDownload({
      limits: deps.downloads,
      allowPrivateNetwork: deps.http.allowPrivateNetwork || deps.env.WEFT_HTTP_ALLOW_PRIVATE === '1',
      signal: ctx.signal,
      label: `model call to ${input.model}`,
    }),
    // The default handler console.errors the whole provider error (response body included,
    // which may echo a key); errors reach the caller through the stream instead.
    onError: () => {},
    onEnd: (event) => {
      ended = event;
    },
    ...(input.schema ? { output: Output.object({ schema: jsonSchema(input.schema as JSONSchema7) }) } : {}),
  });

  let streamError: unknown;
  for await (const part of result.stream) {
    if (part.type === 'text-delta') batcher.push(part.text);
    else if (part.type === 'error') streamError ??= part.error;
  }
  // An abort ends the stream quietly (an `abort` part), so the signal is checked here.
  if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error('aborted');
  if (streamError !== undefined) throw streamError;
  if (ended === undefined) throw new Error(`the model stream of ${resolved.provider} ended without a result`);

  const { text, toolCalls, responseMessages, totalUsage: usage, finishReason } = ended;
  const output: ModelTurnOutput = {
    text,
    // A call the SDK could not parse (unknown tool, input failing its schema) is already
    // answered with an error result in responseMessages; running it again would answer twice.
    toolCalls: toolCalls
      .filter((call) => !(call as { invalid?: boolean }).invalid)
      .map((call) => ({ id: call.toolCallId, tool: call.toolName, args: toJson(call.input) })),
    responseMessages: toJson(responseMessages) as ModelTurnOutput['responseMessages'],
    usage: toUsage(usage),
    finishReason,
  };
  // The result's promise, not onEnd's value: it rejects, with the reason, when the answer
  // does not fit the schema (onEnd just leaves `output` out).
  if (input.schema) output.object = toJson(await result.output);
  return output;
}

function toSdkTools(specs: ToolSpec[]): Record<string, Tool> | undefined {
  if (specs.length === 0) return undefined;
  // Keyed by tool names, which a model echoes back: no inherited members to match.
  const tools: Record<string, Tool> = Object.create(null);
  for (const spec of specs) {
    tools[spec.name] = tool({ description: spec.description, inputSchema: jsonSchema(spec.parameters as JSONSchema7) });
  }
  return tools;
}

function toUsage(usage: {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  totalTokens: number | undefined;
}): TokenUsage {
  const inputTokens = usage.inputTokens ?? 0;
  const outputTokens = usage.outputTokens ?? 0;
  return { inputTokens, outputTokens, totalTokens: usage.totalTokens ?? inputTokens + outputTokens };
}

/** One clear error naming the model; retryable unless a retry cannot help. Keys are scrubbed. */
function describeError(error: unknown, spec: string, resolved: ResolvedModel, signal: AbortSignal): Error {
  if (error instanceof WeftError) return error;
  const clean = (text: string) => redact(text, resolved.secrets);
  if (signal.aborted) {
    const reason = signal.reason as { name?: string; message?: string } | undefined;
    const what = reason?.name === 'TimeoutError' ? 'timed out' : `was aborted (${reason?.message ?? 'cancelled'})`;
    return new ModelCallError(resolved, clean(`model call to ${spec} ${what}`));
  }
  const message = clean(error instanceof Error ? error.message : String(error));
  if (APICallError.isInstance(error)) {
    const status = error.statusCode === undefined ? '' : ` (HTTP ${error.statusCode})`;
    const text = `model call to ${spec} failed${status}: ${message}`;
    // 400/401/403/404 mean a bad request, key or model name: retrying cannot fix them.
    return error.isRetryable ? new ModelCallError(resolved, text) : new NonRetryableError(text);
  }
  if (
    InvalidPromptError.isInstance(error) ||
    UnsupportedFunctionalityError.isInstance(error) ||
    LoadAPIKeyError.isInstance(error)
  ) {
    return new NonRetryableError(`model call to ${spec} cannot be made: ${message}`);
  }
  if (error instanceof Error && error.name === 'AI_NoObjectGeneratedError') {
    return new ModelCallError(resolved, `model ${spec} did not return an object matching the schema: ${message}`);
  }
  return new ModelCallError(resolved, `model call to ${spec} failed: ${message}`);
}
