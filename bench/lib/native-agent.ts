/**
 * The agent loop of the native programs (bench/backends' "native" rows), without Weft: ask the
 * model, run the tool calls it asks for, append everything to the conversation, until it answers
 * without a tool call. The model is the recorded turn itself, as the mock model with fixtures
 * answers in Weft (`lib/flows.ts` agentFixtures): each turn is one model call and each tool call
 * one more, each a checkpoint of the engine that runs it (an activity, a `step.run`, a commit).
 * No imports: the Temporal workflow bundle includes this file.
 */

/** A recorded turn, as in `agentFixtures`: tool calls, or the final text. */
export interface NativeTurn {
  text?: string;
  toolCalls?: { tool: string; args: unknown }[];
}

export interface NativeToolCall {
  id: string;
  tool: string;
  args: unknown;
}

export interface NativeMessage {
  role: 'user' | 'assistant' | 'tool';
  content: unknown;
}

/** What the model call gets: the conversation so far and the recorded turn to answer with. */
export interface NativeModelInput {
  turn: number;
  messages: NativeMessage[];
  fixture: NativeTurn;
}

export interface NativeModelAnswer {
  text: string;
  toolCalls: NativeToolCall[];
}

export interface NativeAgentResult {
  text: string;
  toolCalls: NativeToolCall[];
}

/** The mock model: the recorded turn, shaped as a model's answer. */
export function nativeModelTurn(input: NativeModelInput): NativeModelAnswer {
  const calls = input.fixture.toolCalls ?? [];
  return {
    text: input.fixture.text ?? '',
    toolCalls: calls.map((call, index) => ({ id: `call-${input.turn}-${index}`, tool: call.tool, args: call.args })),
  };
}

/** The no-op tool. */
export function nativeTool(_call: NativeToolCall): null {
  return null;
}

/** The loop; `model` and `tool` are the engine's checkpointed calls. */
export async function nativeAgentLoop(
  fixtures: readonly NativeTurn[],
  model: (input: NativeModelInput) => Promise<NativeModelAnswer>,
  tool: (call: NativeToolCall) => Promise<unknown>,
): Promise<NativeAgentResult> {
  const messages: NativeMessage[] = [{ role: 'user', content: 'go' }];
  const toolCalls: NativeToolCall[] = [];
  for (let turn = 1; turn <= fixtures.length; turn++) {
    const answer = await model({ turn, messages, fixture: fixtures[turn - 1] ?? {} });
    messages.push({ role: 'assistant', content: answer });
    if (answer.toolCalls.length === 0) return { text: answer.text, toolCalls };
    for (const call of answer.toolCalls) {
      toolCalls.push(call);
      messages.push({ role: 'tool', content: { id: call.id, result: await tool(call) } });
    }
  }
  throw new Error(`the model did not answer within ${fixtures.length} turns`);
}

/** The three scenarios, as the native programs take them. */
export type NativeJob =
  | { kind: 'sequential'; steps: number }
  | { kind: 'fanOut'; width: number }
  | { kind: 'agent'; fixtures: NativeTurn[] };

/** A native program on one engine: runs a job to its end and returns its result (checked by the caller). */
export interface NativeBench {
  label: string;
  /** What the engine runs per job, for the notes. */
  describe: string;
  run(job: NativeJob): Promise<unknown>;
  close(): Promise<void>;
}
