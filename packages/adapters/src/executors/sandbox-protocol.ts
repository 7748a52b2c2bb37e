/**
 * What crosses between the sandbox pool (the API's thread) and a sandbox worker: one job in, one
 * reply out, both plain data. Kept apart from both sides so the worker loads no engine code and
 * the main thread loads no QuickJS.
 */

export const DEFAULT_SANDBOX_TIMEOUT_MS = 1000;
export const DEFAULT_SANDBOX_MEMORY_BYTES = 32 * 1024 * 1024;
/**
 * How deep a result may nest (arrays and objects inside one another): the limit flow documents
 * have (MAX_DOCUMENT_DEPTH). Past a few thousand levels the host's recursive JSON helpers
 * (hashing, canonical JSON, copies of the state) overflow the stack with an error that names
 * nothing; a result is refused at the sandbox instead, naming the code and the limit.
 */
export const MAX_RESULT_DEPTH = 1000;

/** One call: the author's function body, its parameter names and the JSON text of their values. */
export interface SandboxJob {
  source: string;
  names: string[];
  argsJson: string;
  /** How errors name the code ("code step", "tool \"lookup\""). */
  label: string;
  timeoutMs: number;
  memoryBytes: number;
  /**
   * The largest result, in bytes of JSON, measured in the worker: a larger one is refused there
   * and never crosses to the API's thread (copying and measuring 20 × 4 MB results there held
   * its event loop for over 100 ms at a time).
   */
  maxResultBytes?: number;
}

export type SandboxReply = (
  | { ok: true; json: string }
  /** `resultBytes`: the result was over the job's maxResultBytes (and was left in the worker). */
  | { ok: false; message: string; resultBytes?: number }
) & {
  /** The worker's WebAssembly module is spent or suspect: the pool replaces the worker. */
  retire: boolean;
};

export type WorkerMessage = { type: 'ready' } | { type: 'reply'; id: number; reply: SandboxReply };
export interface JobMessage {
  id: number;
  job: SandboxJob;
}

/** What the worker starts with: the memory limit its first WebAssembly module is capped for. */
export interface SandboxWorkerData {
  memoryBytes: number;
}

// The same words whichever side notices: QuickJS inside the worker, or the pool killing it.
export function timeLimitMessage(job: Pick<SandboxJob, 'label' | 'timeoutMs'>): string {
  return `${job.label} exceeded its ${job.timeoutMs} ms time limit`;
}

export function resultTooDeepMessage(job: Pick<SandboxJob, 'label'>, depth: number): string {
  return `${job.label} returned a value nested ${depth} levels deep; a result may nest at most ${MAX_RESULT_DEPTH} levels (arrays and objects inside one another)`;
}

export function memoryLimitMessage(job: Pick<SandboxJob, 'label' | 'memoryBytes'>): string {
  return `${job.label} exceeded its ${formatBytes(job.memoryBytes)} memory limit`;
}

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}
