/**
 * Model providers a deployment adds by configuration: `WEFT_MODEL_PROVIDERS` holds JSON keyed by
 * the prefix flows use in model strings, e.g.
 *
 *   {"groq": {"package": "@ai-sdk/groq", "apiKeyEnv": "GROQ_API_KEY", "options": {"baseURL": "…"}}}
 *
 * makes "groq:llama-3.1-8b-instant" a model. The package is imported on first use and its
 * `create…` factory called with `options` (plus the key read from `apiKeyEnv`). The config is
 * checked when the executor registry is built, so a typo stops the server at startup rather than
 * failing runs later. No error here repeats a config or env value: the JSON may sit next to keys.
 */
import { type Json, NonRetryableError } from '@weft/engine';
import type { createProviderRegistry } from 'ai';

export const MODEL_PROVIDERS_ENV = 'WEFT_MODEL_PROVIDERS';

/** What `createProviderRegistry` accepts as a provider (the SDK does not export the type itself). */
export type SdkProvider = Parameters<typeof createProviderRegistry>[0][string];

export interface ProviderConfig {
  /** The package (any import specifier) that exports the provider factory, e.g. "@ai-sdk/groq". */
  package: string;
  /** The factory export; default the `create…` export named after the package (createGroq). */
  factory?: string;
  /** Passed to the factory as is: baseURL, non-secret headers, provider settings. */
  options?: { [key: string]: Json };
  /** The env var holding the API key; given to the factory as `apiKey`, scrubbed from errors. */
  apiKeyEnv?: string;
  /** Shown in the editor's model list; default "<prefix> (<package>)". */
  label?: string;
}

/** Prefixes of the providers Weft has built in; a configured or registered one cannot reuse them. */
export const BUILTIN_PROVIDERS = ['openai', 'anthropic', 'local', 'mock'] as const;

/** A provider prefix; the engine's llm step schema accepts exactly these before the colon. */
export const PROVIDER_ID = /^[a-z][a-z0-9_-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FIELDS = ['package', 'factory', 'options', 'apiKeyEnv', 'label'];
const EXAMPLE = '{"groq": {"package": "@ai-sdk/groq", "apiKeyEnv": "GROQ_API_KEY"}}';

type Env = Record<string, string | undefined>;

/** The configured providers by prefix (empty when the variable is unset or blank). */
export function readProviderConfigs(env: Env): Map<string, ProviderConfig> {
  const text = env[MODEL_PROVIDERS_ENV];
  const configs = new Map<string, ProviderConfig>();
  if (text === undefined || text.trim() === '') return configs;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text around the fault; only the position is safe to repeat.
    const at = /at position \d+/.exec((error as Error).message)?.[0];
    throw new NonRetryableError(
      `${MODEL_PROVIDERS_ENV} is not valid JSON${at ? ` (${at})` : ''}; expected an object such as ${EXAMPLE}`,
    );
  }
  if (!isObject(parsed)) {
    throw new NonRetryableError(
      `${MODEL_PROVIDERS_ENV} must be a JSON object keyed by provider prefix, e.g. ${EXAMPLE}`,
    );
  }
  for (const [id, value] of Object.entries(parsed)) configs.set(id, checkConfig(id, value));
  return configs;
}

function checkConfig(id: string, value: unknown): ProviderConfig {
  const where = `${MODEL_PROVIDERS_ENV}.${id}`;
  const fail = (message: string) => new NonRetryableError(message);
  if (!PROVIDER_ID.test(id)) {
    throw fail(
      `${MODEL_PROVIDERS_ENV}: ${JSON.stringify(id)} is not a provider prefix (lowercase letters, digits, "-" and "_", starting with a letter)`,
    );
  }
  if ((BUILTIN_PROVIDERS as readonly string[]).includes(id)) {
    throw fail(`${where}: "${id}" is built in (see the README's Models section); configure another prefix`);
  }
  if (!isObject(value)) throw fail(`${where} must be an object with at least "package", e.g. ${EXAMPLE}`);
  for (const field of Object.keys(value)) {
    if (!FIELDS.includes(field)) {
      throw fail(`${where}: unknown field ${JSON.stringify(field)}; the fields are ${FIELDS.join(', ')}`);
    }
  }
  const config: ProviderConfig = {
    package: nonEmpty(value.package, `${where}.package`, 'a package name such as "@ai-sdk/groq"'),
  };
  if (value.factory !== undefined)
    config.factory = nonEmpty(value.factory, `${where}.factory`, 'the name of an export');
  if (value.label !== undefined) config.label = nonEmpty(value.label, `${where}.label`, 'a string');
  if (value.apiKeyEnv !== undefined) {
    if (typeof value.apiKeyEnv !== 'string' || !ENV_NAME.test(value.apiKeyEnv)) {
      throw fail(`${where}.apiKeyEnv must be the name of an environment variable, e.g. "GROQ_API_KEY"`);
    }
    config.apiKeyEnv = value.apiKeyEnv;
  }
  if (value.options !== undefined) {
    if (!isObject(value.options)) throw fail(`${where}.options must be an object (the factory's settings)`);
    if (Object.hasOwn(value.options, 'apiKey')) {
      throw fail(
        `${where}.options.apiKey: keep keys out of the config; put the key in an env var and name it in apiKeyEnv`,
      );
    }
    config.options = value.options as { [key: string]: Json };
  }
  return config;
}

/**
 * Imports the package and builds the provider. Every failure is non-retryable: another attempt
 * imports the same package with the same config.
 */
export async function loadProvider(id: string, config: ProviderConfig, env: Env): Promise<SdkProvider> {
  const where = `${MODEL_PROVIDERS_ENV}.${id}`;
  const pkg = config.package;
  let module: Record<string, unknown>;
  try {
    // The specifier comes from the server's own configuration, never from a flow.
    module = (await import(/* @vite-ignore */ pkg)) as Record<string, unknown>;
  } catch (error) {
    if (isNotFound(error, pkg)) {
      throw new NonRetryableError(
        `model provider "${id}" needs the package "${pkg}" (${where}.package), which is not installed; ` +
          `install it where Weft runs: pnpm add --filter @weft/adapters ${pkg}`,
      );
    }
    throw new NonRetryableError(`model provider "${id}": the package "${pkg}" failed to load: ${messageOf(error)}`);
  }
  const [name, factory] = findFactory(module, config, where);
  const apiKey = config.apiKeyEnv ? env[config.apiKeyEnv] : undefined;
  let provider: unknown;
  try {
    provider = factory({ ...config.options, ...(apiKey ? { apiKey } : {}) });
  } catch (error) {
    // A factory may echo its settings; the key is scrubbed by the caller, which knows every key.
    throw new NonRetryableError(`model provider "${id}": ${name}(options) from "${pkg}" failed: ${messageOf(error)}`);
  }
  if (!provider || typeof (provider as { languageModel?: unknown }).languageModel !== 'function') {
    throw new NonRetryableError(
      `model provider "${id}": ${name}() from "${pkg}" did not return an AI SDK provider (no languageModel method)`,
    );
  }
  return provider as SdkProvider;
}

type Factory = (options: Record<string, unknown>) => unknown;

/** `factory` if named; else the `create…` export matching the package name, or the only one. */
function findFactory(module: Record<string, unknown>, config: ProviderConfig, where: string): [string, Factory] {
  // A CommonJS package's exports may only be reachable through `default`.
  const exports = { ...(isObject(module.default) ? module.default : {}), ...module };
  const creates = Object.keys(exports).filter((key) => /^create[A-Z]/.test(key) && typeof exports[key] === 'function');
  const found = `its create… exports: ${creates.join(', ') || 'none'}`;
  if (config.factory !== undefined) {
    const named = Object.hasOwn(exports, config.factory) ? exports[config.factory] : undefined;
    if (typeof named !== 'function') {
      throw new NonRetryableError(
        `${where}.factory: "${config.package}" has no function export "${config.factory}" (${found})`,
      );
    }
    return [config.factory, named as Factory];
  }
  // "@ai-sdk/openai-compatible" → createOpenAICompatible: compared without case and dashes.
  const base = config.package
    .replace(/^@[^/]+\//, '')
    .replace(/[^A-Za-z0-9]/g, '')
    .toLowerCase();
  const name =
    creates.find((key) => key.toLowerCase() === `create${base}`) ?? (creates.length === 1 ? creates[0] : undefined);
  if (name === undefined) {
    throw new NonRetryableError(
      `${where}: cannot tell which export of "${config.package}" creates the provider (${found}); name it in ${where}.factory`,
    );
  }
  return [name, exports[name] as Factory];
}

function isNotFound(error: unknown, pkg: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return messageOf(error).includes(pkg);
  // Vite's loader (tests) words it differently and sets no code.
  return (
    /cannot find (package|module)|failed to (load|resolve)/i.test(messageOf(error)) && messageOf(error).includes(pkg)
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function nonEmpty(value: unknown, where: string, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new NonRetryableError(`${where} must be ${what}`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
