/**
 * A stand-in provider package for the WEFT_MODEL_PROVIDERS tests (model-registry.test.ts imports
 * it by path): two factories, neither named after the file, so the convention cannot choose and
 * the config has to name one; one of them fails and echoes its key, as a careless factory might.
 */
import { MockLanguageModelV4 } from 'ai/test';

export function createAlpha(options: { greeting?: string } = {}) {
  const languageModel = (modelId: string) =>
    new MockLanguageModelV4({
      provider: 'alpha',
      modelId,
      doStream: async () => ({
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'text-start', id: 't' });
            controller.enqueue({ type: 'text-delta', id: 't', delta: `${options.greeting ?? 'hi'} from ${modelId}` });
            controller.enqueue({ type: 'text-end', id: 't' });
            controller.enqueue({
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: {
                inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
                outputTokens: { total: 1, text: 1, reasoning: undefined },
              },
            });
            controller.close();
          },
        }),
      }),
    });
  const none = () => {
    throw new Error('alpha only has language models');
  };
  return { specificationVersion: 'v4' as const, languageModel, embeddingModel: none, imageModel: none };
}

export function createBeta(options: { apiKey?: string }) {
  throw new Error(`beta refuses the key ${options.apiKey}`);
}
