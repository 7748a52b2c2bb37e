import type { Json, JsonObject, StepCall } from '@weft/engine';
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
  execute(args: Json, ctx: { signal: AbortSignal }): Promise<Json> | Json;
}

export interface ExecutorOptions {
  tools?: Record<string, HostTool>;
  /** Where API keys and base URLs come from; defaults to process.env. */
  env?: Record<string, string | undefined>;
  http?: {
    /** Allow loopback, private and link-local addresses (also WEFT_HTTP_ALLOW_PRIVATE=1). */
    allowPrivateNetwork?: boolean;
    /** Default 5 MB. */
    maxResponseBytes?: number;
  };
  sandbox?: {
    timeoutMs?: number;
    memoryBytes?: number;
    /** Worker threads running code steps; default the core count less one (1–8). */
    workers?: number;
    /** Code calls that may wait for a worker; default 1000. Beyond it a call fails (retryably). */
    maxQueue?: number;
  };
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
  http: { allowPrivateNetwork: boolean; maxResponseBytes: number };
  sandbox: { timeoutMs?: number; memoryBytes?: number; pool: SandboxPool };
}
