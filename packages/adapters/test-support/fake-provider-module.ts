/**
 * A stand-in provider package for the WEFT_MODEL_PROVIDERS tests (model-registry.test.ts imports
 * it by path): two factories, neither named after the file, so the convention cannot choose and
 * the config has to name one; one of them fails and echoes its key, as a careless factory might.
 */
import { MockLanguageModelV4 } from 'ai/test';
import { textStream } from './text-stream.ts';

export function createAlpha(options: { greeting?: string } = {}) {
  const languageModel = (modelId: string) =>
    new MockLanguageModelV4({
      provider: 'alpha',
      modelId,
      doStream: async () => textStream(`${options.greeting ?? 'hi'} from ${modelId}`, { input: 1, output: 1 }),
    });
  const none = () => {
    throw new Error('alpha only has language models');
  };
  return { specificationVersion: 'v4' as const, languageModel, embeddingModel: none, imageModel: none };
}

export function createBeta(options: { apiKey?: string }) {
  throw new Error(`beta refuses the key ${options.apiKey}`);
}
