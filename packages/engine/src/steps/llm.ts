/**
 * `llm`: one model call, or an agent loop when `maxSteps > 1`. Each model call and each tool
 * call is its own checkpointed step (`agent/llm#3`, `agent/tool#3.0`), so a crash in turn 7
 * re-runs only turn 7. The conversation is carried forward exactly as the model returned it
 * and the whole of it is the step's `messages` output, so a later step can continue it.
 */
import { z } from 'zod';
import { DeterminismError, isRunInterrupt, NonRetryableError, toErrorInfo } from '../errors.ts';
import type { StepContext, StepHandler } from '../interpreter/context.ts';
import type { FixtureTurn, ModelMessage, ModelToolCall, ModelTurnOutput, TokenUsage } from '../interpreter/host.ts';
import { settleAll } from '../interpreter/settle.ts';
import { callTool, toolSpec } from '../interpreter/tools.ts';
import { baseStepShape, exprSchema, jsonSchemaSchema, templateSchema } from '../ir/common.ts';
import { isJsonObject, type Json, type JsonObject, ownEntry } from '../json.ts';
import type { StepManifest } from './manifest.ts';

/** The built-in providers (a server may add more; see the adapters' model registry). */
export const MODEL_PROVIDERS = ['openai', 'anthropic', 'local', 'mock'] as const;

export const llmStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('llm'),
  // Any prefix: besides the built-in four, a server adds providers by configuration or in code,
  // and only the executor knows which; it names the missing one when the step runs.
  model: z
    .string()
    .regex(
      /^[a-z][a-z0-9_-]*:\S+$/,
      'must be "<provider>:<model>", e.g. "openai:gpt-4o-mini", with provider openai, anthropic, local, mock or one the server adds',
    ),
  system: templateSchema.optional(),
  prompt: templateSchema.optional(),
  /** An Expr giving earlier messages, e.g. "=steps.draft.output.messages". */
  messages: exprSchema.optional(),
  tools: z.array(z.string().min(1)).optional(),
  maxSteps: z.int().min(1).max(100).optional(),
  schema: jsonSchemaSchema.optional(),
});
export type LlmStep = z.infer<typeof llmStepSchema>;

interface LlmInput {
  model: string;
  system?: string;
  messages: ModelMessage[];
  tools: string[];
}

const llmHandler: StepHandler<LlmStep, LlmInput> = {
  describeInput(step, ctx) {
    const messages: ModelMessage[] = [];
    if (step.messages !== undefined) {
      const earlier = ctx.resolve(step.messages);
      if (!Array.isArray(earlier) || !earlier.every(isJsonObject)) {
        throw new NonRetryableError('messages must evaluate to an array of message objects');
      }
      messages.push(...earlier);
    }
    if (step.prompt !== undefined) messages.push({ role: 'user', content: String(ctx.resolve(step.prompt)) });
    const input: LlmInput = { model: step.model, messages, tools: step.tools ?? [] };
    if (step.system !== undefined) input.system = String(ctx.resolve(step.system));
    return input;
  },
  async execute(step, ctx, input) {
    const tools = input.tools.map((name) => toolSpec(name, ctx));
    const fixtures = fixtureTurns(step, ctx);
    const messages = [...input.messages];
    const toolCalls: (ModelToolCall & { result: Json })[] = [];
    const usage: TokenUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    const maxSteps = step.maxSteps ?? 1;
    let last: ModelTurnOutput | undefined;
    for (let turn = 1; turn <= maxSteps; turn++) {
      last = await modelTurn(step, ctx, { turn, messages, tools, system: input.system, fixture: fixtures?.[turn - 1] });
      messages.push(...last.responseMessages);
      addUsage(usage, last.usage);
      if (last.toolCalls.length === 0) {
        // The SDK itself answers a malformed tool call with an error result; let the model retry.
        if (last.responseMessages.at(-1)?.role === 'tool') continue;
        break;
      }
      // Like parallel branches: every call settles before a park or failure propagates.
      const results = await settleAll(
        last.toolCalls.map((call, index) => runToolCall(ctx, `${ctx.path}/tool#${turn}.${index}`, call)),
      );
      last.toolCalls.forEach((call, index) => {
        toolCalls.push({ ...call, result: results[index]!.value });
      });
      messages.push({ role: 'tool', content: results.map((result) => result.part) });
    }
    const output: JsonObject = {
      text: last?.text ?? '',
      messages,
      toolCalls: toolCalls as unknown as Json,
      usage: usage as unknown as Json,
      finishReason: last?.finishReason ?? 'stop',
    };
    if (last?.object !== undefined) output.object = last.object;
    return output;
  },
};

/** Everything `llm` means, for the registry, the validator, code-first, codegen and the editor. */
export const llmStep: StepManifest<LlmStep> = {
  type: 'llm',
  schema: llmStepSchema,
  handler: llmHandler,
  fields: {
    model: { kind: 'model' },
    system: { kind: 'template', multiline: true },
    prompt: { kind: 'template', multiline: true },
    messages: { kind: 'expression' },
    tools: { kind: 'literal' },
    maxSteps: { kind: 'literal' },
    schema: { kind: 'json-schema' },
  },
  check(step, checks) {
    if (step.prompt === undefined && step.messages === undefined)
      checks.issue(['prompt'], 'an llm step needs a prompt or messages');
    (step.tools ?? []).forEach((name, index) => {
      checks.tool(name, ['tools', index]);
    });
  },
  editor: {
    label: 'LLM',
    icon: 'sparkles',
    description: 'Ask a model; with tools and maxSteps it is an agent loop.',
    shape: 'node',
    defaults: { model: 'mock:echo', prompt: '{{ input.text }}' },
  },
};

async function modelTurn(
  step: LlmStep,
  ctx: StepContext,
  turn: {
    turn: number;
    messages: ModelMessage[];
    tools: ReturnType<typeof toolSpec>[];
    system: string | undefined;
    fixture: FixtureTurn | undefined;
  },
): Promise<ModelTurnOutput> {
  const id = `${ctx.path}/llm#${turn.turn}`;
  ctx.host.emit({ type: 'step.started', stepId: id, stepType: 'model-turn', parentId: ctx.path });
  const input = {
    model: step.model,
    // A copy: the call is data, and `messages` keeps growing after this turn.
    messages: [...turn.messages],
    tools: turn.tools,
    stepId: step.id,
    turn: turn.turn,
    ...(turn.system === undefined ? {} : { system: turn.system }),
    ...(step.schema === undefined ? {} : { schema: step.schema as JsonObject }),
    ...(turn.fixture === undefined ? {} : { fixture: turn.fixture }),
  };
  try {
    const output = (await ctx.host.run(id, { kind: 'model-turn', input }, ctx.policy)) as unknown as ModelTurnOutput;
    ctx.host.emit({ type: 'step.completed', stepId: id, output: output as unknown as Json, usage: output.usage });
    return output;
  } catch (error) {
    if (!isRunInterrupt(error)) ctx.host.emit({ type: 'step.failed', stepId: id, error: toErrorInfo(error) });
    throw error;
  }
}

/**
 * A failing tool does not fail the agent: like the `ai` SDK, the error goes back to the model
 * as the tool's result so it can recover. The failure is journaled, so a replay sees it too.
 */
async function runToolCall(
  ctx: StepContext,
  id: string,
  call: ModelToolCall,
): Promise<{ value: Json; part: JsonObject }> {
  ctx.host.emit({
    type: 'step.started',
    stepId: id,
    stepType: 'tool-call',
    parentId: ctx.path,
    input: { tool: call.tool, args: call.args },
  });
  const base = { type: 'tool-result', toolCallId: call.id, toolName: call.tool };
  try {
    const value = await callTool(call.tool, call.args, id, ctx);
    ctx.host.emit({ type: 'step.completed', stepId: id, output: value });
    return { value, part: { ...base, output: { type: 'json', value } } };
  } catch (error) {
    // A determinism error is not the tool's failure: feeding it to the model would diverge silently.
    if (isRunInterrupt(error) || error instanceof DeterminismError) throw error;
    const info = toErrorInfo(error);
    ctx.host.emit({ type: 'step.failed', stepId: id, error: info });
    return { value: { error: info.message }, part: { ...base, output: { type: 'error-text', value: info.message } } };
  }
}

function fixtureTurns(step: LlmStep, ctx: StepContext): FixtureTurn[] | undefined {
  const fixtures = ctx.options.fixtures;
  if (fixtures === undefined) return undefined;
  return ownEntry(fixtures, ctx.path) ?? ownEntry(fixtures, step.id);
}

function addUsage(total: TokenUsage, turn: TokenUsage): void {
  total.inputTokens += turn.inputTokens;
  total.outputTokens += turn.outputTokens;
  total.totalTokens += turn.totalTokens;
}
