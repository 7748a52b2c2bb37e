/**
 * The model of the agent-loop rows, as an `ai` SDK LanguageModel: it answers the same recorded
 * turns as `agentFixtures` (the no-op tool `turns - 1` times, then "done"), picking the turn
 * from the conversation it is given (one per assistant message so far), so it holds no state and
 * both sides of the comparison — Weft's llm step and the SDK's own `generateText` loop — ask it
 * exactly the same way. Nothing is slept: the rows measure the loops, not a model.
 */
import type { LanguageModelV4 } from '../../packages/adapters/src/executors/mock-model.ts';
import { NOOP_TOOL } from './flows.ts';

type CallOptions = Parameters<LanguageModelV4['doGenerate']>[0];
type Content = Awaited<ReturnType<LanguageModelV4['doGenerate']>>['content'];
type StreamPart =
  Awaited<ReturnType<LanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 2, text: 2, reasoning: undefined },
};

export function recordedModel(turns: number): LanguageModelV4 {
  const answer = (options: CallOptions): Content => {
    const turn = options.prompt.filter((message) => message.role === 'assistant').length;
    if (turn < turns - 1) {
      return [{ type: 'tool-call', toolCallId: `call-${turn}`, toolName: NOOP_TOOL, input: '{}' }];
    }
    return [{ type: 'text', text: 'done' }];
  };
  return {
    specificationVersion: 'v4',
    provider: 'bench',
    modelId: 'recorded',
    supportedUrls: {},
    async doGenerate(options) {
      const content = answer(options);
      const finish = content[0]?.type === 'tool-call' ? 'tool-calls' : 'stop';
      return { content, finishReason: { unified: finish, raw: finish }, usage, warnings: [] };
    },
    async doStream(options) {
      const content = answer(options);
      const parts: StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const part of content) {
        if (part.type === 'text') {
          parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: part.text });
          parts.push({ type: 'text-end', id: 't' });
        } else if (part.type === 'tool-call') parts.push(part);
      }
      const finish = content[0]?.type === 'tool-call' ? 'tool-calls' : 'stop';
      parts.push({ type: 'finish', finishReason: { unified: finish, raw: finish }, usage });
      return {
        stream: new ReadableStream<StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}
