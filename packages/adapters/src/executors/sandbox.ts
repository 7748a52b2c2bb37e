/**
 * The `code` sandbox: QuickJS compiled to WebAssembly, run in a pool of worker threads so a
 * busy step never holds the API's event loop. Author code never touches Node's own engine (no
 * eval, new Function or node:vm), has no I/O, and is bounded in time (QuickJS's interrupt
 * handler, and a deadline on which the pool terminates the worker), memory (a cap on the
 * WebAssembly memory) and stack. Only JSON text crosses into and out of the sandbox.
 */
import { type Json, NonRetryableError } from '@weft/engine';
import { SandboxPool, SandboxResultTooLargeError } from './sandbox-pool.ts';
import { DEFAULT_SANDBOX_MEMORY_BYTES, DEFAULT_SANDBOX_TIMEOUT_MS } from './sandbox-protocol.ts';

export {
  DEADLINE_GRACE_MS,
  DEFAULT_SANDBOX_MAX_QUEUE,
  DEFAULT_SANDBOX_WORKERS,
  SandboxClosedError,
  SandboxPool,
  type SandboxPoolOptions,
  SandboxQueueFullError,
} from './sandbox-pool.ts';
export { DEFAULT_SANDBOX_MEMORY_BYTES, DEFAULT_SANDBOX_TIMEOUT_MS } from './sandbox-protocol.ts';

export interface SandboxLimits {
  /** Wall-clock budget for compiling and running, default 1000 ms. */
  timeoutMs?: number;
  /** Memory of the QuickJS heap, default 32 MiB. */
  memoryBytes?: number;
  /** How errors name the code ("code step", "tool \"lookup\""). */
  label?: string;
}

export interface SandboxRunOptions {
  /** Aborting abandons the call: a queued call leaves the queue, a running one's worker is terminated. */
  signal?: AbortSignal;
  /** The workers to run on; default one pool shared by the process (idle workers never keep it alive). */
  pool?: SandboxPool;
  /** The run the call belongs to: waiting calls of different runs take turns for a worker. */
  runId?: string;
  /**
   * The largest result in bytes of JSON, and the error for a larger one (code.ts: the step output
   * limit). Measured in the worker: a huge result is never copied to this thread nor parsed here.
   */
  resultLimit?: { maxBytes: number; tooLarge(bytes: number): Error };
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

let sharedPool: SandboxPool | undefined;

// For callers without a registry (its pool is the registry's). Never closed: its idle workers
// are unref'd and stop after a while.
function defaultPool(): SandboxPool {
  sharedPool ??= new SandboxPool();
  return sharedPool;
}

/**
 * Runs `source` as the body of a function whose parameters are the keys of `globals`, called
 * with their values, and returns what it returns (undefined → null). A failure of the code (an
 * error, a limit) is a NonRetryableError: running the same code again gives the same result.
 * A full queue is a SandboxQueueFullError, which is retryable; an abort rejects with the
 * signal's reason.
 */
export async function runInSandbox(
  source: string,
  globals: Record<string, Json>,
  limits: SandboxLimits = {},
  options: SandboxRunOptions = {},
): Promise<Json> {
  const label = limits.label ?? 'code step';
  const timeoutMs = limits.timeoutMs ?? DEFAULT_SANDBOX_TIMEOUT_MS;
  const memoryBytes = limits.memoryBytes ?? DEFAULT_SANDBOX_MEMORY_BYTES;
  const { signal } = options;
  if (signal?.aborted) throw signal.reason ?? new NonRetryableError(`${label} was aborted`);
  if (typeof source !== 'string') throw new NonRetryableError(`${label}: source must be a string`);
  const names = Object.keys(globals);
  for (const name of names) {
    if (!IDENTIFIER.test(name)) throw new NonRetryableError(`${label}: "${name}" is not a valid parameter name`);
  }
  const argsJson = JSON.stringify(names.map((name) => globals[name] ?? null));
  const pool = options.pool ?? defaultPool();
  const { resultLimit } = options;
  const job = { source, names, argsJson, label, timeoutMs, memoryBytes, maxResultBytes: resultLimit?.maxBytes };
  const json = await pool.run(job, signal, options.runId).catch((error: unknown) => {
    throw error instanceof SandboxResultTooLargeError && resultLimit ? resultLimit.tooLarge(error.bytes) : error;
  });
  try {
    return JSON.parse(json) as Json;
  } catch {
    // Only reachable when the code replaced JSON.stringify inside its own sandbox.
    throw new NonRetryableError(`${label} returned a value that is not JSON`);
  }
}
