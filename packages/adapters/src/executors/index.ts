/**
 * The executor registry: runs one checkpointed StepCall. Every backend calls it the same way
 * (inline in-process, inside Inngest's step.run, in a Temporal activity), so it takes plain
 * JSON and returns plain JSON, and holds no state a retry on another machine would miss.
 */
import { type Json, NonRetryableError, type StepCall, type StepCallKind } from '@weft/engine';
import { checkSize, STEP_OUTPUT_LIMIT, sizeLimit } from '../limits.ts';
import { executeCode } from './code.ts';
import { DEFAULT_MAX_RESPONSE_BYTES, executeHttp } from './http.ts';
import { resolveDownloadLimits } from './model-download.ts';
import { ModelRegistry } from './model-registry.ts';
import { executeModelTurn } from './model-turn.ts';
import { SandboxPool } from './sandbox-pool.ts';
import { executeTool } from './tool.ts';
import type { ExecutorContext, ExecutorDeps, ExecutorOptions, ExecutorRegistry } from './types.ts';

export { DEFAULT_MAX_RESPONSE_BYTES, HttpRequestError, isPrivateAddress } from './http.ts';
export { IDEMPOTENCY_KEY_HEADER, idempotencyKey } from './idempotency.ts';
export {
  DEFAULT_DOWNLOAD_MAX_BYTES,
  DEFAULT_DOWNLOAD_TIMEOUT_MS,
  DOWNLOAD_MAX_BYTES_ENV,
  DOWNLOAD_TIMEOUT_ENV,
  type DownloadOptions,
  ModelDownloadError,
} from './model-download.ts';
export { ModelRegistry, type ModelRegistryOptions, type RegisteredModel } from './model-registry.ts';
export { DELTA_INTERVAL_MS, ModelCallError } from './model-turn.ts';
export { MODEL_PROVIDERS_ENV, type ProviderConfig } from './provider-config.ts';
export { listModelProviders, type ModelProviderId, type ModelProviderInfo } from './providers.ts';
export {
  DEFAULT_SANDBOX_MEMORY_BYTES,
  DEFAULT_SANDBOX_TIMEOUT_MS,
  runInSandbox,
  SandboxClosedError,
  type SandboxLimits,
  SandboxQueueFullError,
} from './sandbox.ts';
export { hostToolSpecs } from './tool.ts';
export type { ExecutorContext, ExecutorOptions, ExecutorRegistry, HostTool, HostToolContext } from './types.ts';

type Executor<K extends StepCallKind> = (
  input: Extract<StepCall, { kind: K }>['input'],
  ctx: ExecutorContext,
  deps: ExecutorDeps,
) => Promise<Json>;

// Exhaustive: a new StepCall kind does not compile until it has an executor here.
const executors: { [K in StepCallKind]: Executor<K> } = {
  'model-turn': executeModelTurn,
  tool: executeTool,
  code: executeCode,
  http: executeHttp,
};

/** The value, or a SizeLimitError naming the step when its JSON is over the step output limit. */
function checkedOutput(value: Json, stepId: string, deps: ExecutorDeps): Json {
  checkSize(value, deps.maxOutputBytes, STEP_OUTPUT_LIMIT, `step '${stepId}' output`);
  return value;
}

export function createExecutorRegistry(options: ExecutorOptions = {}): ExecutorRegistry {
  const env = options.env ?? process.env;
  // An invalid WEFT_MODEL_PROVIDERS or `models` throws here, when the server starts, not mid-run.
  const models = new ModelRegistry({ env, ...(options.models ? { models: options.models } : {}) });
  const { workers, maxQueue, ...limits } = options.sandbox ?? {};
  // Its workers start with the first code step; close() stops them.
  const pool = new SandboxPool({ size: workers, maxQueue, memoryBytes: limits.memoryBytes });
  const deps: ExecutorDeps = {
    tools: options.tools ?? {},
    env,
    models,
    http: {
      allowPrivateNetwork: options.http?.allowPrivateNetwork ?? false,
      maxResponseBytes: options.http?.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    },
    // A bad WEFT_DOWNLOAD_* value throws here, at start, like a bad WEFT_MODEL_PROVIDERS.
    downloads: resolveDownloadLimits(options.downloads, env),
    sandbox: { ...limits, pool },
    maxOutputBytes: options.maxStepOutputBytes ?? sizeLimit(STEP_OUTPUT_LIMIT, env),
  };
  return {
    // Not async: the executor's promise is handed on as is (an async wrapper would add turns to
    // every step); what fails before it starts is a rejection all the same.
    execute(call, ctx) {
      const kind = (call as { kind?: unknown } | null)?.kind;
      if (typeof kind !== 'string' || !Object.hasOwn(executors, kind)) {
        return Promise.reject(new NonRetryableError(`unknown step call kind ${JSON.stringify(kind)}`));
      }
      // The map above is typed per kind; this one cast joins the union back up.
      const execute = executors[call.kind] as Executor<StepCallKind>;
      try {
        // Every backend's results come back through here, so the step output limit holds on all.
        // A code step's result is measured earlier, as the worker's JSON text (code.ts).
        const output = execute(call.input as never, ctx, deps);
        return call.kind === 'code' ? output : output.then((value) => checkedOutput(value, ctx.stepId, deps));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    close() {
      pool.close();
    },
  };
}
