/**
 * The built-in providers: "openai:gpt-4o-mini", "anthropic:claude-…", "local:llama3.2:1b" (any
 * OpenAI-compatible server: Ollama, llama.cpp, vLLM) and "mock:echo", as AI SDK providers for
 * the provider registry (model-registry.ts). Keys and base URLs come from the env the executor
 * registry was given, never from the flow, and are read when a model is asked for, so a key set
 * after startup is used and a missing one fails that call with the variable's name.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { NonRetryableError } from '@weft/engine';
import { customProvider, NoSuchModelError } from 'ai';
import { createMockModel, type LanguageModelV4 } from './mock-model.ts';
import { readProviderConfigs, type SdkProvider } from './provider-config.ts';

/** A built-in prefix, or one added by WEFT_MODEL_PROVIDERS or by the embedding application. */
export type ModelProviderId = string;

export interface ModelProviderInfo {
  id: ModelProviderId;
  configured: boolean;
  label: string;
}

type Env = Record<string, string | undefined>;

export interface ResolvedModel {
  provider: ModelProviderId;
  modelId: string;
  model: LanguageModelV4;
  /** Values to scrub from any error text (API keys). */
  secrets: string[];
}

/** Env vars of the built-in providers whose values are secret. */
export const BUILTIN_SECRET_ENV = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'WEFT_LOCAL_API_KEY'];

/**
 * Which providers this server can use; safe to show in the editor (no keys, no URLs). Configured
 * providers count as configured when their key variable is set (or they name none).
 */
export function listModelProviders(env: Env = process.env): ModelProviderInfo[] {
  const builtin: ModelProviderInfo[] = [
    { id: 'openai', configured: Boolean(env.OPENAI_API_KEY), label: 'OpenAI' },
    { id: 'anthropic', configured: Boolean(env.ANTHROPIC_API_KEY), label: 'Anthropic' },
    { id: 'local', configured: Boolean(env.WEFT_LOCAL_BASE_URL), label: 'Local (OpenAI-compatible server)' },
    { id: 'mock', configured: true, label: 'Mock (offline echo, for demos and tests)' },
  ];
  const added = [...readProviderConfigs(env)].map(([id, config]) => ({
    id,
    configured: config.apiKeyEnv ? Boolean(env[config.apiKeyEnv]) : true,
    label: config.label ?? `${id} (${config.package})`,
  }));
  return [...builtin, ...added];
}

/** The four built-in providers, keyed by prefix, ready for `createProviderRegistry`. */
export function builtinProviders(env: Env): Record<string, SdkProvider> {
  return {
    openai: fromEnv('openai', (modelId) => {
      const apiKey = required(env, 'OPENAI_API_KEY', `openai:${modelId}`);
      return createOpenAI({ apiKey, baseURL: env.OPENAI_BASE_URL || undefined })(modelId);
    }),
    anthropic: fromEnv('anthropic', (modelId) => {
      const apiKey = required(env, 'ANTHROPIC_API_KEY', `anthropic:${modelId}`);
      return createAnthropic({ apiKey, baseURL: env.ANTHROPIC_BASE_URL || undefined })(modelId);
    }),
    local: fromEnv('local', (modelId) => {
      const baseURL = required(
        env,
        'WEFT_LOCAL_BASE_URL',
        `local:${modelId}`,
        ' (e.g. http://127.0.0.1:11434/v1 for Ollama)',
      );
      return createOpenAICompatible({
        name: 'local',
        baseURL: baseURL.replace(/\/+$/, ''),
        apiKey: env.WEFT_LOCAL_API_KEY || undefined,
        // Usage arrives only when asked for in a stream; Ollama, llama.cpp and vLLM honour it.
        includeUsage: true,
        // All three accept response_format json_schema, so structured output uses the schema.
        supportsStructuredOutputs: true,
      }).chatModel(modelId);
    }),
    // customProvider answers any other id with NoSuchModelError, which the registry words. It
    // looks ids up with `in`: without a prototype, "mock:constructor" is unknown too.
    mock: customProvider({ languageModels: Object.assign(Object.create(null), { echo: createMockModel('echo') }) }),
  };
}

/** A provider whose models are created per request, so each reads the env at that moment. */
function fromEnv(id: string, languageModel: (modelId: string) => LanguageModelV4): SdkProvider {
  const none = (modelType: 'embeddingModel' | 'imageModel') => (modelId: string) => {
    throw new NoSuchModelError({ modelId: `${id}:${modelId}`, modelType });
  };
  return {
    specificationVersion: 'v4',
    languageModel,
    embeddingModel: none('embeddingModel'),
    imageModel: none('imageModel'),
  };
}

function required(env: Env, name: string, spec: string, hint = ''): string {
  const value = env[name];
  if (!value) throw new NonRetryableError(`model "${spec}" needs ${name} to be set in the server's environment${hint}`);
  return value;
}

/** Removes every secret from a piece of text that may end up in an event or the journal. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out;
}
