import { fileURLToPath } from 'node:url';
import { type ModelTurnInput, type ModelTurnOutput, NonRetryableError } from '@weft/engine';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../../test-support/fake-openai-server.ts';
import { textStream } from '../../test-support/text-stream.ts';
import { createExecutorRegistry, type ExecutorOptions, listModelProviders, type ProviderConfig } from './index.ts';

const FAKE_MODULE = fileURLToPath(new URL('../../test-support/fake-provider-module.ts', import.meta.url));
const KEY = 'gsk-test-secret-4711';

const providersEnv = (configs: Record<string, unknown>, extra: Record<string, string> = {}) => ({
  WEFT_MODEL_PROVIDERS: JSON.stringify(configs),
  ...extra,
});

async function turn(model: string, options: ExecutorOptions) {
  const input: ModelTurnInput = {
    model,
    messages: [{ role: 'user', content: 'Hello?' }],
    tools: [],
    stepId: 'ask',
    turn: 1,
  };
  const deltas: string[] = [];
  const output = await createExecutorRegistry(options).execute(
    { kind: 'model-turn', input },
    {
      signal: new AbortController().signal,
      runId: 'run-1',
      stepId: 'ask/llm#1',
      emitDelta: (text) => deltas.push(text),
    },
  );
  return { output: output as unknown as ModelTurnOutput, deltas };
}

function thrown(work: () => unknown): Error {
  try {
    work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

async function rejected(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the model turn to fail');
}

describe('WEFT_MODEL_PROVIDERS is checked when the registry is built', () => {
  const build = (text: string) => thrown(() => createExecutorRegistry({ env: { WEFT_MODEL_PROVIDERS: text } }));

  it.each<[string, string, RegExp]>([
    [
      'invalid JSON',
      `{"groq": {"package": "@ai-sdk/groq", "apiKey": "${KEY}"`,
      /^WEFT_MODEL_PROVIDERS is not valid JSON \(at position \d+\)/,
    ],
    ['a list', '[]', /^WEFT_MODEL_PROVIDERS must be a JSON object keyed by provider prefix/],
    [
      'a prefix with capitals',
      '{"Groq": {"package": "@ai-sdk/groq"}}',
      /^WEFT_MODEL_PROVIDERS: "Groq" is not a provider prefix/,
    ],
    [
      'a built-in prefix',
      '{"openai": {"package": "@ai-sdk/openai"}}',
      /^WEFT_MODEL_PROVIDERS\.openai: "openai" is built in/,
    ],
    ['no package', '{"groq": {}}', /^WEFT_MODEL_PROVIDERS\.groq\.package must be a package name/],
    [
      'a misspelt field',
      '{"groq": {"package": "@ai-sdk/groq", "apikeyenv": "X"}}',
      /^WEFT_MODEL_PROVIDERS\.groq: unknown field "apikeyenv"; the fields are/,
    ],
    [
      'a bad apiKeyEnv',
      '{"groq": {"package": "@ai-sdk/groq", "apiKeyEnv": "gsk live"}}',
      /^WEFT_MODEL_PROVIDERS\.groq\.apiKeyEnv must be the name of an environment variable/,
    ],
    [
      'options that are a string',
      '{"groq": {"package": "@ai-sdk/groq", "options": "fast"}}',
      /^WEFT_MODEL_PROVIDERS\.groq\.options must be an object/,
    ],
    [
      'a key inside options',
      `{"groq": {"package": "@ai-sdk/groq", "options": {"apiKey": "${KEY}"}}}`,
      /^WEFT_MODEL_PROVIDERS\.groq\.options\.apiKey: keep keys out of the config/,
    ],
  ])('refuses %s, naming the variable and field and repeating no value', (_name, text, message) => {
    const error = build(text);
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain('gsk live');
  });

  it('lists configured providers in the same shape as the built-in ones, without keys', () => {
    const config: ProviderConfig = { package: '@ai-sdk/groq', apiKeyEnv: 'GROQ_API_KEY', label: 'Groq' };
    const env = providersEnv({ groq: config, alpha: { package: FAKE_MODULE, factory: 'createAlpha' } });
    expect(listModelProviders(env).slice(4)).toEqual([
      { id: 'groq', configured: false, label: 'Groq' },
      { id: 'alpha', configured: true, label: `alpha (${FAKE_MODULE})` },
    ]);
    const withKey = listModelProviders({ ...env, GROQ_API_KEY: KEY });
    expect(withKey.find((provider) => provider.id === 'groq')?.configured).toBe(true);
    expect(JSON.stringify(withKey)).not.toContain(KEY);
  });
});

describe('a provider package added by configuration', () => {
  let server: FakeOpenAIServer;
  let groq: Record<string, string>;
  beforeAll(async () => {
    server = await startFakeOpenAIServer();
    groq = providersEnv(
      { groq: { package: '@ai-sdk/groq', options: { baseURL: server.baseURL }, apiKeyEnv: 'GROQ_API_KEY' } },
      { GROQ_API_KEY: KEY },
    );
  });
  afterAll(() => server.close());

  it('is imported, created with its options and key, and answers over real HTTP', async () => {
    const { output, deltas } = await turn('groq:streamer', { env: groq });
    expect(output.text).toBe('Hello from the local model.');
    expect(deltas.join('')).toBe(output.text);
    expect(server.requests.at(-1)).toMatchObject({
      path: '/v1/chat/completions',
      authorization: `Bearer ${KEY}`,
      body: { model: 'streamer', stream: true, messages: [{ role: 'user', content: 'Hello?' }] },
    });
  });

  it('finds the factory by convention without regard to case (@ai-sdk/openai-compatible → createOpenAICompatible)', async () => {
    const env = providersEnv({
      together: { package: '@ai-sdk/openai-compatible', options: { name: 'together', baseURL: server.baseURL } },
    });
    const { output } = await turn('together:streamer', { env });
    expect(output.text).toBe('Hello from the local model.');
  });

  it('scrubs the configured key from a provider error that echoes it', async () => {
    // openai-compatible repeats the server's error text, and the fake server echoes the key there.
    const env = providersEnv(
      {
        together: {
          package: '@ai-sdk/openai-compatible',
          options: { name: 'together', baseURL: server.baseURL },
          apiKeyEnv: 'TOGETHER_KEY',
        },
      },
      { TOGETHER_KEY: KEY },
    );
    const error = await rejected(turn('together:bad-key', { env }));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(server.requests.at(-1)?.authorization).toBe(`Bearer ${KEY}`);
    expect(error.message).toMatch(/^model call to together:bad-key failed \(HTTP 401\): Incorrect API key provided/);
    expect(error.message).toContain('[redacted]');
    expect(error.message).not.toContain(KEY);
  });

  it('names the key variable when it is not set, before calling anything', async () => {
    const before = server.requests.length;
    const { GROQ_API_KEY: _, ...env } = groq;
    const error = await rejected(turn('groq:streamer', { env }));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe(
      `model "groq:streamer" needs GROQ_API_KEY to be set in the server's environment (WEFT_MODEL_PROVIDERS.groq.apiKeyEnv)`,
    );
    expect(server.requests.length).toBe(before);
  });

  it('names a package that is not installed and how to install it', async () => {
    const env = providersEnv({ cohere: { package: '@ai-sdk/not-installed-here' } });
    const error = await rejected(turn('cohere:command', { env }));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe(
      'model provider "cohere" needs the package "@ai-sdk/not-installed-here" (WEFT_MODEL_PROVIDERS.cohere.package), ' +
        'which is not installed; install it where Weft runs: pnpm add --filter @weft/adapters @ai-sdk/not-installed-here',
    );
  });

  it('asks for the factory when the package has several and none is named after it', async () => {
    const error = await rejected(turn('fake:x', { env: providersEnv({ fake: { package: FAKE_MODULE } }) }));
    expect(error.message).toMatch(
      /^WEFT_MODEL_PROVIDERS\.fake: cannot tell which export .* \(its create… exports: createAlpha, createBeta\); name it in WEFT_MODEL_PROVIDERS\.fake\.factory$/,
    );
  });

  it('names a factory export that does not exist', async () => {
    const env = providersEnv({ groq: { package: '@ai-sdk/groq', factory: 'createGrok' } });
    const error = await rejected(turn('groq:x', { env }));
    expect(error.message).toBe(
      'WEFT_MODEL_PROVIDERS.groq.factory: "@ai-sdk/groq" has no function export "createGrok" (its create… exports: createGroq)',
    );
  });

  it('calls the named factory with the JSON options', async () => {
    const env = providersEnv({ fake: { package: FAKE_MODULE, factory: 'createAlpha', options: { greeting: 'olá' } } });
    expect((await turn('fake:tiny', { env })).output.text).toBe('olá from tiny');
  });

  it('scrubs the key from a factory that fails and echoes it', async () => {
    const env = providersEnv(
      { fake: { package: FAKE_MODULE, factory: 'createBeta', apiKeyEnv: 'BETA_KEY' } },
      { BETA_KEY: KEY },
    );
    const error = await rejected(turn('fake:x', { env }));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe(
      `model provider "fake": createBeta(options) from "${FAKE_MODULE}" failed: beta refuses the key [redacted]`,
    );
  });

  it('lists the configured providers among those a flow may use when the prefix is unknown', async () => {
    const error = await rejected(turn('gemini:pro', { env: groq }));
    expect(error.message).toBe(
      'unknown model provider "gemini" in "gemini:pro"; use one of openai, anthropic, local, mock, groq',
    );
  });
});

describe('the built-in providers through the registry', () => {
  it.each(['mock:parrot', 'mock:constructor', 'mock:__proto__'])('%s is an unknown mock model', async (model) => {
    const error = await rejected(turn(model, { env: {} }));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe(`unknown mock model "${model}"; the mock provider offers "mock:echo"`);
  });
});

describe('language models registered in code', () => {
  const answering = (text: string) =>
    new MockLanguageModelV4({
      doStream: async () => textStream(text, { input: 3, output: 2 }),
    });

  it('answer under their name, and only the one named answers', async () => {
    const fast = answering('fast answer');
    const slow = answering('slow answer');
    const { output } = await turn('acme:fast', { env: {}, models: { 'acme:fast': fast, 'acme:slow': slow } });
    expect(output).toMatchObject({ text: 'fast answer', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } });
    expect(fast.doStreamCalls).toHaveLength(1);
    expect(fast.doStreamCalls[0]?.prompt).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hello?' }] }]);
    expect(slow.doStreamCalls).toHaveLength(0);
  });

  it.each(['acme:medium', 'acme:constructor'])(
    '%s is unknown, and the error lists what is registered',
    async (model) => {
      const error = await rejected(turn(model, { env: {}, models: { 'acme:fast': answering('x') } }));
      expect(error).toBeInstanceOf(NonRetryableError);
      expect(error.message).toBe(`unknown acme model "${model}"; the acme provider offers "acme:fast"`);
    },
  );

  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'a name without a provider',
      { fast: answering('x') },
      /^models\["fast"\]: a registered model's name must be "<provider>:<model>"/,
    ],
    ['a built-in prefix', { 'mock:echo2': answering('x') }, /^models\["mock:echo2"\]: "mock" is a built-in provider/],
    [
      'something that is not a model',
      { 'acme:fast': { doStream: 'no' } },
      /^models\["acme:fast"\] is not an AI SDK LanguageModel/,
    ],
  ])('refuses %s when the registry is built', (_name, models, message) => {
    const error = thrown(() => createExecutorRegistry({ env: {}, models: models as ExecutorOptions['models'] }));
    expect(error.message).toMatch(message);
  });

  it('refuses a prefix WEFT_MODEL_PROVIDERS already configures', () => {
    const env = providersEnv({ acme: { package: '@ai-sdk/groq' } });
    const error = thrown(() => createExecutorRegistry({ env, models: { 'acme:fast': answering('x') } }));
    expect(error.message).toBe(
      'models["acme:fast"]: "acme" is already configured in WEFT_MODEL_PROVIDERS; register under another prefix',
    );
  });
});
