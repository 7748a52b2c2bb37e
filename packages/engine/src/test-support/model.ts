/**
 * A deterministic executor for engine tests: model turns from fixtures (or a script, or
 * `mock:echo`), tools, code and http from plain functions. Model turns have the same shape the
 * adapters' executor gives (an assistant message with text and tool-call parts, call ids
 * `call_<turn>_<index>`), so what the interpreter carries forward is what a real run carries.
 */
import type {
  CallPolicy,
  CodeCallInput,
  FixtureTurn,
  HttpCallInput,
  HttpCallOutput,
  ModelMessage,
  ModelTurnInput,
  ModelTurnOutput,
  StepCall,
} from '../interpreter/host.ts';
import type { Json } from '../json.ts';

export interface ExecutorOptions {
  /** Host tools by name. Throwing fails the call (the agent sees the error). */
  tools?: Record<string, (args: Json, id: string) => Json | Promise<Json>>;
  code?: (input: CodeCallInput, id: string) => Json | Promise<Json>;
  http?: (input: HttpCallInput, id: string) => HttpCallOutput | Promise<HttpCallOutput>;
  /** Answers a model turn that has no fixture; default: echo the last user message. */
  model?: (input: ModelTurnInput, id: string) => FixtureTurn | ModelTurnOutput | Promise<FixtureTurn | ModelTurnOutput>;
}

export type Execute = (call: StepCall, id: string, policy: CallPolicy) => Promise<Json>;

export function createExecutor(options: ExecutorOptions = {}): Execute {
  return async (call, id) => {
    switch (call.kind) {
      case 'model-turn': {
        const input = call.input;
        if (input.fixture) return asJson(turnFromFixture(input, input.fixture));
        const answer = options.model ? await options.model(input, id) : { text: lastUserText(input.messages) };
        return asJson('responseMessages' in answer ? answer : turnFromFixture(input, answer));
      }
      case 'tool': {
        const tool = options.tools?.[call.input.tool];
        if (!tool) throw new Error(`no tool '${call.input.tool}' in this test`);
        return tool(call.input.args, id);
      }
      case 'code':
        if (!options.code) throw new Error('no code executor in this test');
        return options.code(call.input, id);
      case 'http':
        if (!options.http) throw new Error('no http executor in this test');
        return asJson(await options.http(call.input, id));
    }
  };
}

/** The model turn a fixture stands for. */
export function turnFromFixture(input: Pick<ModelTurnInput, 'turn'>, fixture: FixtureTurn): ModelTurnOutput {
  const toolCalls = (fixture.toolCalls ?? []).map((call, index) => ({
    id: `call_${input.turn}_${index}`,
    tool: call.tool,
    args: call.args ?? {},
  }));
  const text = fixture.text ?? (fixture.object === undefined ? '' : JSON.stringify(fixture.object));
  const content: Json[] = [];
  if (text !== '') content.push({ type: 'text', text });
  for (const call of toolCalls) {
    content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.tool, input: call.args });
  }
  const responseMessages: ModelMessage[] = content.length > 0 ? [{ role: 'assistant', content }] : [];
  const output: ModelTurnOutput = {
    text,
    toolCalls,
    responseMessages,
    usage: fixture.usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    finishReason: toolCalls.length > 0 ? 'tool-calls' : 'stop',
  };
  if (fixture.object !== undefined) output.object = fixture.object;
  return output;
}

function lastUserText(messages: readonly ModelMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'user') return typeof message.content === 'string' ? message.content : '';
  }
  return '';
}

function asJson(value: unknown): Json {
  return value as Json;
}

export interface RecordedCall {
  id: string;
  call: StepCall;
  policy: CallPolicy;
}

/** Wraps an executor so a test can read every call the interpreter made, in order. */
export function recordCalls(execute: Execute): { execute: Execute; calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  return {
    calls,
    execute: (call, id, policy) => {
      calls.push({ id, call, policy });
      return execute(call, id, policy);
    },
  };
}
