/**
 * Model strings → AI SDK language models, through the SDK's provider registry
 * (`createProviderRegistry`). Three kinds of provider share it, each prefix owned by one:
 *  - built in: openai, anthropic, local, mock (providers.ts);
 *  - configured by the deployment in WEFT_MODEL_PROVIDERS (provider-config.ts), imported on first
 *    use;
 *  - registered in code by the embedding application: `models: { 'acme:fast': languageModel }`.
 * Every failure to find a model is a NonRetryableError that names the model and never a key.
 */
import { NonRetryableError } from '@weft/engine';
import { createProviderRegistry, customProvider, type LanguageModel, NoSuchModelError, NoSuchProviderError } from 'ai';
import { MOCK_MODELS } from './mock-model.ts';
import {
  BUILTIN_PROVIDERS,
  loadProvider,
  MODEL_PROVIDERS_ENV,
  PROVIDER_ID,
  type ProviderConfig,
  readProviderConfigs,
  type SdkProvider,
} from './provider-config.ts';
import { BUILTIN_SECRET_ENV, builtinProviders, type ResolvedModel, redact } from './providers.ts';

/** A language model object an application registers (anything `streamText` takes but a string). */
export type RegisteredModel = Exclude<LanguageModel, string>;

export interface ModelRegistryOptions {
  env: Record<string, string | undefined>;
  /** Models registered in code, by the full model string flows use: `{ 'acme:fast': model }`. */
  models?: Record<string, RegisteredModel>;
}

type Registry = ReturnType<typeof createProviderRegistry<Record<string, SdkProvider>>>;

export class ModelRegistry {
  readonly #env: ModelRegistryOptions['env'];
  readonly #configs: Map<string, ProviderConfig>;
  /** Keyed by prefix; no prototype, so "constructor:x" finds nothing. */
  readonly #providers: Record<string, SdkProvider> = Object.create(null);
  /** Model ids each customProvider-backed prefix offers, for "unknown model" errors. */
  readonly #offered = new Map<string, string[]>([['mock', [...MOCK_MODELS]]]);
  readonly #loading = new Map<string, Promise<void>>();
  #registry: Registry;

  /** Throws when WEFT_MODEL_PROVIDERS or `models` is invalid, so a server fails at startup. */
  constructor(options: ModelRegistryOptions) {
    this.#env = options.env;
    this.#configs = readProviderConfigs(options.env);
    Object.assign(this.#providers, builtinProviders(options.env));
    for (const [id, models] of this.#groupRegistered(options.models ?? {})) {
      this.#offered.set(id, Object.keys(models));
      this.#providers[id] = customProvider({ languageModels: models });
    }
    this.#registry = createProviderRegistry(this.#providers);
  }

  /** The model a flow's model string names, with the secrets its errors must not show. */
  async resolve(spec: string): Promise<ResolvedModel> {
    if (typeof spec !== 'string') throw new NonRetryableError('model must be a string like "openai:gpt-4o-mini"');
    // Split at the first colon only (as the SDK registry does): local ids often hold one ("llama3.2:1b").
    const colon = spec.indexOf(':');
    const provider = colon > 0 ? spec.slice(0, colon) : '';
    const modelId = colon > 0 ? spec.slice(colon + 1) : '';
    if (!provider || !modelId) {
      throw new NonRetryableError(
        `model "${spec}" must be "<provider>:<model>", e.g. "openai:gpt-4o-mini", "anthropic:claude-sonnet-4-5", "local:llama3.2" or "mock:echo"`,
      );
    }
    const secrets = this.#secrets();
    const config = this.#configs.get(provider);
    if (config) {
      if (config.apiKeyEnv && !this.#env[config.apiKeyEnv]) {
        throw new NonRetryableError(
          `model "${spec}" needs ${config.apiKeyEnv} to be set in the server's environment (${MODEL_PROVIDERS_ENV}.${provider}.apiKeyEnv)`,
        );
      }
      await this.#load(provider, config, secrets);
    }
    try {
      const model = this.#registry.languageModel(spec as `${string}:${string}`);
      return { provider, modelId, model, secrets };
    } catch (error) {
      throw this.#describe(error, spec, provider, secrets);
    }
  }

  /** Imports a configured provider once; concurrent first uses share the import. */
  async #load(id: string, config: ProviderConfig, secrets: string[]): Promise<void> {
    if (Object.hasOwn(this.#providers, id)) return;
    let loading = this.#loading.get(id);
    if (!loading) {
      loading = loadProvider(id, config, this.#env).then((provider) => {
        this.#providers[id] = provider;
        // The SDK registry has no public way to add a provider later: build it again.
        this.#registry = createProviderRegistry(this.#providers);
      });
      // A failed import is tried again by the next call (the package may have been installed).
      loading.catch(() => this.#loading.delete(id));
      this.#loading.set(id, loading);
    }
    try {
      await loading;
    } catch (error) {
      // A factory may echo its settings, the key among them.
      throw new NonRetryableError(redact(error instanceof Error ? error.message : String(error), secrets));
    }
  }

  #describe(error: unknown, spec: string, provider: string, secrets: string[]): Error {
    if (NoSuchProviderError.isInstance(error)) {
      const known = Object.keys(this.#providers);
      const pending = [...this.#configs.keys()].filter((id) => !known.includes(id));
      return new NonRetryableError(
        `unknown model provider "${provider}" in "${spec}"; use one of ${[...known, ...pending].join(', ')}`,
      );
    }
    if (NoSuchModelError.isInstance(error)) {
      const offered = this.#offered.get(provider);
      const hint = offered
        ? `; the ${provider} provider offers ${offered.map((id) => `"${provider}:${id}"`).join(', ')}`
        : '';
      return new NonRetryableError(`unknown ${provider} model "${spec}"${hint}`);
    }
    if (error instanceof NonRetryableError) return error;
    const message = error instanceof Error ? error.message : String(error);
    return new NonRetryableError(redact(`model "${spec}" cannot be created: ${message}`, secrets));
  }

  /** Every model key this registry knows: scrubbed from any error, whichever provider failed. */
  #secrets(): string[] {
    const names = [...BUILTIN_SECRET_ENV];
    for (const config of this.#configs.values()) if (config.apiKeyEnv) names.push(config.apiKeyEnv);
    return names.map((name) => this.#env[name]).filter((value): value is string => Boolean(value));
  }

  /** `{ 'acme:fast': m }` → acme → { fast: m }, refusing prefixes another kind of provider owns. */
  #groupRegistered(models: Record<string, RegisteredModel>): Map<string, Record<string, RegisteredModel>> {
    const groups = new Map<string, Record<string, RegisteredModel>>();
    for (const [name, model] of Object.entries(models)) {
      const colon = name.indexOf(':');
      const id = colon > 0 ? name.slice(0, colon) : '';
      const modelId = colon > 0 ? name.slice(colon + 1) : '';
      if (!PROVIDER_ID.test(id) || !/^\S+$/.test(modelId)) {
        throw new NonRetryableError(
          `models[${JSON.stringify(name)}]: a registered model's name must be "<provider>:<model>", e.g. "acme:fast" (provider: lowercase letters, digits, "-", "_")`,
        );
      }
      if ((BUILTIN_PROVIDERS as readonly string[]).includes(id)) {
        throw new NonRetryableError(
          `models[${JSON.stringify(name)}]: "${id}" is a built-in provider; register under your own prefix`,
        );
      }
      if (this.#configs.has(id)) {
        throw new NonRetryableError(
          `models[${JSON.stringify(name)}]: "${id}" is already configured in ${MODEL_PROVIDERS_ENV}; register under another prefix`,
        );
      }
      // A provider (a function) passed instead of one of its models is refused here too.
      const candidate = model as { specificationVersion?: unknown; doStream?: unknown } | null;
      if (
        typeof candidate !== 'object' ||
        !['v2', 'v3', 'v4'].includes(candidate?.specificationVersion as string) ||
        typeof candidate?.doStream !== 'function'
      ) {
        throw new NonRetryableError(
          `models[${JSON.stringify(name)}] is not an AI SDK LanguageModel (e.g. createOpenAI({ … })('gpt-4o-mini'))`,
        );
      }
      const group = groups.get(id) ?? (Object.create(null) as Record<string, RegisteredModel>);
      group[modelId] = model;
      groups.set(id, group);
    }
    return groups;
  }
}
