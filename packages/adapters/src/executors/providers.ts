/**
 * Model strings → `ai` SDK models. "openai:gpt-4o-mini", "anthropic:claude-…",
 * "local:llama3.2:1b" (any OpenAI-compatible server: Ollama, llama.cpp, vLLM) and "mock:echo".
 * Keys and base URLs come from the env the registry was given, never from the flow, and are
 * never put in an error message.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { NonRetryableError } from '@weft/engine';
import { createMockModel, type LanguageModelV4, MOCK_MODELS } from './mock-model.ts';

export type ModelProviderId = 'openai' | 'anthropic' | 'local' | 'mock';

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

/** Which providers this server can use; safe to show in the editor (no keys, no URLs). */
export function listModelProviders(env: Env = process.env): ModelProviderInfo[] {
  return [
    { id: 'openai', configured: Boolean(env.OPENAI_API_KEY), label: 'OpenAI' },
    { id: 'anthropic', configured: Boolean(env.ANTHROPIC_API_KEY), label: 'Anthropic' },
    { id: 'local', configured: Boolean(env.WEFT_LOCAL_BASE_URL), label: 'Local (OpenAI-compatible server)' },
    { id: 'mock', configured: true, label: 'Mock (offline echo, for demos and tests)' },
  ];
}

export function resolveModel(spec: string, env: Env): ResolvedModel {
  if (typeof spec !== 'string') throw new NonRetryableError('model must be a string like "openai:gpt-4o-mini"');
  // Split at the first colon only: local model ids often contain one ("llama3.2:1b").
  const colon = spec.indexOf(':');
  const provider = colon > 0 ? spec.slice(0, colon) : '';
  const modelId = colon > 0 ? spec.slice(colon + 1) : '';
  if (!provider || !modelId) {
    throw new NonRetryableError(
      `model "${spec}" must be "<provider>:<model>", e.g. "openai:gpt-4o-mini", "anthropic:claude-sonnet-4-5", "local:llama3.2" or "mock:echo"`,
    );
  }
  switch (provider) {
    case 'openai': {
      const apiKey = required(env, 'OPENAI_API_KEY', spec);
      const baseURL = env.OPENAI_BASE_URL || undefined;
      return { provider, modelId, model: createOpenAI({ apiKey, baseURL })(modelId), secrets: [apiKey] };
    }
    case 'anthropic': {
      const apiKey = required(env, 'ANTHROPIC_API_KEY', spec);
      const baseURL = env.ANTHROPIC_BASE_URL || undefined;
      return { provider, modelId, model: createAnthropic({ apiKey, baseURL })(modelId), secrets: [apiKey] };
    }
    case 'local': {
      const baseURL = required(env, 'WEFT_LOCAL_BASE_URL', spec, ' (e.g. http://127.0.0.1:11434/v1 for Ollama)');
      const apiKey = env.WEFT_LOCAL_API_KEY || undefined;
      const local = createOpenAICompatible({
        name: 'local',
        baseURL: baseURL.replace(/\/+$/, ''),
        apiKey,
        // Usage arrives only when asked for in a stream; Ollama, llama.cpp and vLLM honour it.
        includeUsage: true,
        // All three accept response_format json_schema, so structured output uses the schema.
        supportsStructuredOutputs: true,
      });
      return { provider, modelId, model: local.chatModel(modelId), secrets: apiKey ? [apiKey] : [] };
    }
    case 'mock': {
      if (!(MOCK_MODELS as readonly string[]).includes(modelId)) {
        throw new NonRetryableError(`unknown mock model "${spec}"; the mock provider offers "mock:echo"`);
      }
      return { provider, modelId, model: createMockModel('echo'), secrets: [] };
    }
    default:
      throw new NonRetryableError(
        `unknown model provider "${provider}" in "${spec}"; use one of openai, anthropic, local, mock`,
      );
  }
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
