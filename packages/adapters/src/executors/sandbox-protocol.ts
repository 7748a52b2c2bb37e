/**
 * What crosses between the sandbox pool (the API's thread) and a sandbox worker: one job in, one
 * reply out, both plain data. Kept apart from both sides so the worker loads no engine code and
 * the main thread loads no QuickJS.
 */

export const DEFAULT_SANDBOX_TIMEOUT_MS = 1000;
export const DEFAULT_SANDBOX_MEMORY_BYTES = 32 * 1024 * 1024;

/** One call: the author's function body, its parameter names and the JSON text of their values. */
export interface SandboxJob {
  source: string;
  names: string[];
  argsJson: string;
  /** How errors name the code ("code step", "tool \"lookup\""). */
  label: string;
  timeoutMs: number;
  memoryBytes: number;
}

export type SandboxReply = ({ ok: true; json: string } | { ok: false; message: string }) & {
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

export function memoryLimitMessage(job: Pick<SandboxJob, 'label' | 'memoryBytes'>): string {
  return `${job.label} exceeded its ${formatBytes(job.memoryBytes)} memory limit`;
}

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}
