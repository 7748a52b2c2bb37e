/**
 * `mock:echo`: an offline model for demos and tests. It answers with the text of the last
 * user message, streamed in a few deltas, and counts usage in words. It is a real
 * LanguageModelV4, so a mock turn goes through exactly the same `streamText` path as a
 * provider's and produces the same output shape.
 */
import type { LanguageModel } from 'ai';

export type LanguageModelV4 = Extract<LanguageModel, { specificationVersion: 'v4' }>;
type CallOptions = Parameters<LanguageModelV4['doStream']>[0];
type StreamPart =
  Awaited<ReturnType<LanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;

export const MOCK_MODELS = ['echo'] as const;

export function createMockModel(modelId: 'echo'): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'mock',
    modelId,
    supportedUrls: {},
    async doGenerate(options) {
      const { reply, usage } = answer(options);
      return {
        content: reply ? [{ type: 'text', text: reply }] : [],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      };
    },
    async doStream(options) {
      const { reply, usage } = answer(options);
      const parts: StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      if (reply) {
        parts.push({ type: 'text-start', id: 'txt-0' });
        for (const delta of splitIntoDeltas(reply)) parts.push({ type: 'text-delta', id: 'txt-0', delta });
        parts.push({ type: 'text-end', id: 'txt-0' });
      }
      parts.push({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
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

function answer(options: CallOptions) {
  const texts = options.prompt.map(messageText);
  let reply = '';
  for (let i = options.prompt.length - 1; i >= 0; i--) {
    if (options.prompt[i]?.role === 'user') {
      reply = texts[i] ?? '';
      break;
    }
  }
  const inputWords = texts.reduce((sum, text) => sum + countWords(text), 0);
  const outputWords = countWords(reply);
  const usage = {
    inputTokens: { total: inputWords, noCache: inputWords, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: outputWords, text: outputWords, reasoning: undefined },
  };
  return { reply, usage };
}

function messageText(message: CallOptions['prompt'][number]): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** At most four deltas, split at word boundaries, that concatenate back to `text`. */
export function splitIntoDeltas(text: string): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [text];
  const size = Math.max(1, Math.ceil(words.length / 4));
  const deltas: string[] = [];
  for (let i = 0; i < words.length; i += size) deltas.push(words.slice(i, i + size).join(''));
  return deltas;
}
