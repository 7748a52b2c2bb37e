import type { Json, JsonObject, StepCall } from '@weft/engine';
import type { DownloadLimits, DownloadOptions } from './model-download.ts';
import type { ModelRegistry, RegisteredModel } from './model-registry.ts';
import type { SandboxPool } from './sandbox-pool.ts';

/** What the host tells an executor about the call it is running. */
export interface ExecutorContext {
  /** Aborted when the step times out or the run is cancelled. */
  signal: AbortSignal;
  runId: string;
  /** The full step path, e.g. 'agent/llm#2'. */
  stepId: string;
  /** Token deltas of a streaming model call; not checkpointed, best effort. */
  emitDelta(text: string): void;
}

/** A tool registered in TypeScript by the host application. */
export interface HostTool {
  description: string;
  /** JSON Schema of the arguments. */
  parameters: JsonObject;
  execute(args: Json, ctx: HostToolContext): Promise<Json> | Json;
}

/** What a host tool is told about its call. */
export interface HostToolContext {
  /** Aborted when the call times out or the run is cancelled. */
  signal: AbortSignal;
  /**
   * The same on every attempt of this call (retries, and a re-execution after a crash) and
   * different for every other call: derived from the run id and the checkpoint. Pass it to the
   * service the tool changes (an `Idempotency-Key` header, a request id) so a repeat is dropped.
   * A replay is a new run and gets new keys.
   */
  idempotencyKey: string;
}

export interface ExecutorOptions {
  tools?: Record<string, HostTool>;
  /**
   * Where API keys, base URLs and WEFT_MODEL_PROVIDERS (providers added by configuration) come
   * from; defaults to process.env.
   */
  env?: Record<string, string | undefined>;
  /**
   * Language models registered in code, by the model string flows use:
   * `{ 'acme:fast': createOpenAI({ apiKey })('gpt-4o-mini') }` lets a step say `model: 'acme:fast'`.
   * The prefix must not be a built-in or configured provider's.
   */
  models?: Record<string, RegisteredModel>;
  http?: {
    /** Allow loopback, private and link-local addresses (also WEFT_HTTP_ALLOW_PRIVATE=1). */
    allowPrivateNetwork?: boolean;
    /** Default 5 MB. */
    maxResponseBytes?: number;
  };
  /**
   * Files a model call downloads (file and image URLs in its messages the provider cannot take
   * as URLs). They go through the same private-address guard as `http` steps (and
   * `http.allowPrivateNetwork` / WEFT_HTTP_ALLOW_PRIVATE=1 lift it for both).
   */
  downloads?: DownloadOptions;
  sandbox?: {
    timeoutMs?: number;
    memoryBytes?: number;
    /** Worker threads running code steps; default the core count less one (1–8). */
    workers?: number;
    /** Code calls that may wait for a worker; default 1000. Beyond it a call fails (retryably). */
    maxQueue?: number;
  };
  /** Largest step result, in bytes of JSON; default WEFT_MAX_STEP_OUTPUT_BYTES, else 1 MiB. */
  maxStepOutputBytes?: number;
}

/** Runs one checkpointed StepCall: plain JSON in, plain JSON out. */
export interface ExecutorRegistry {
  execute(call: StepCall, ctx: ExecutorContext): Promise<Json>;
  /** Releases what the registry holds (the sandbox's worker threads). */
  close?(): void;
}

/** The resolved options every executor receives. */
export interface ExecutorDeps {
  tools: Record<string, HostTool>;
  env: Record<string, string | undefined>;
  models: ModelRegistry;
  http: { allowPrivateNetwork: boolean; maxResponseBytes: number };
  downloads: DownloadLimits;
  sandbox: { timeoutMs?: number; memoryBytes?: number; pool: SandboxPool };
  /** The step output limit, in bytes of JSON (limits.ts). */
  maxOutputBytes: number;
}
