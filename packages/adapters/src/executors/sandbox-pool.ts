/**
 * Worker threads that run `code` steps off the API's event loop. QuickJS runs synchronously: on
 * the main thread one busy step held every HTTP request for its whole time limit. Workers are
 * started lazily, reused across calls, unref'd while idle (an idle pool never keeps a process
 * alive) and stopped by close(). The main thread keeps a hard deadline on every call: QuickJS's
 * interrupt handler is only consulted between bytecodes, so one long native operation (a huge
 * `repeat`, `fill` or `JSON.stringify`) runs past it; the deadline terminates the worker.
 *
 * Calls wait in one line per run, served in turns (`fair-queue.ts`): one run's `map` of a
 * thousand code steps does not hold another run's single step until it drains.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { NonRetryableError, WeftError } from '@weft/engine';
import { FairQueue } from './fair-queue.ts';
import {
  DEFAULT_SANDBOX_MEMORY_BYTES,
  type JobMessage,
  memoryLimitMessage,
  type SandboxJob,
  type SandboxWorkerData,
  timeLimitMessage,
  type WorkerMessage,
} from './sandbox-protocol.ts';

const WORKER_URL = new URL('./sandbox-worker.ts', import.meta.url);
const MiB = 1024 * 1024;

/**
 * One core is left to the event loop (HTTP, the runner's commits); eight bounds the memory. At
 * least two: with one, every code step of every run waited behind whichever ran (on a 2-core
 * machine three maps of 20 steps of 900 ms took 55 s), and a second worker thread costs little
 * even where it shares a core.
 */
export const DEFAULT_SANDBOX_WORKERS = Math.max(2, Math.min(8, availableParallelism() - 1));
/**
 * The widest a `map` may run (its `concurrency` maximum): one map step alone never overflows.
 * Counted over every run; a run with no call waiting is let in line all the same, so a full
 * queue refuses the runs that filled it, not the next one.
 */
export const DEFAULT_SANDBOX_MAX_QUEUE = 1000;
/** The main thread's deadline comes this long after the time limit QuickJS enforces itself. */
export const DEADLINE_GRACE_MS = 250;
const IDLE_MS = 30_000;

/**
 * Every worker is busy and the queue holds its maximum. Retryable: the code is not at fault
 * and the same call succeeds once the pool drains (a step with a retry policy waits and tries
 * again; Temporal and Inngest retry it).
 */
/** A result over the job's `maxResultBytes`, refused in the worker. */
export class SandboxResultTooLargeError extends NonRetryableError {
  override readonly name = 'SandboxResultTooLargeError';
  readonly bytes: number;
  constructor(message: string, bytes: number) {
    super(message);
    this.bytes = bytes;
  }
}

export class SandboxQueueFullError extends WeftError {
  override readonly code = 'sandbox_queue_full';
}

/** The pool was closed (the registry is shutting down) with the call queued or running. */
export class SandboxClosedError extends WeftError {
  override readonly code = 'sandbox_closed';
}

export interface SandboxPoolOptions {
  /** Worker threads, default DEFAULT_SANDBOX_WORKERS (the core count less one, 2–8). */
  size?: number;
  /** Calls that may wait for a busy worker, default DEFAULT_SANDBOX_MAX_QUEUE. */
  maxQueue?: number;
  /** The memory limit most calls use: the first module's cap and the worker's JS heap derive from it. */
  memoryBytes?: number;
}

interface Call {
  /** Whose line the call waits in: its run's id ('' for a call of no run). */
  owner: string;
  job: SandboxJob;
  signal: AbortSignal | undefined;
  resolve(json: string): void;
  reject(error: unknown): void;
  onAbort(): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  call?: Call;
  callId?: number;
  deadline?: NodeJS.Timeout;
  idle?: NodeJS.Timeout;
}

export class SandboxPool {
  readonly size: number;
  readonly maxQueue: number;
  readonly #memoryBytes: number;
  readonly #slots = new Set<Slot>();
  readonly #queue = new FairQueue<Call>();
  #nextId = 1;
  #started = 0;

  constructor(options: SandboxPoolOptions = {}) {
    this.size = positiveInt(options.size, DEFAULT_SANDBOX_WORKERS, 'size');
    this.maxQueue = positiveInt(options.maxQueue, DEFAULT_SANDBOX_MAX_QUEUE, 'maxQueue', 0);
    this.#memoryBytes = options.memoryBytes ?? DEFAULT_SANDBOX_MEMORY_BYTES;
  }

  /**
   * Runs a job; resolves with the JSON text of its result, rejects with the step's error.
   * `owner` (a run id) chooses the line the call waits in: lines take turns for a free worker.
   */
  run(job: SandboxJob, signal?: AbortSignal, owner = ''): Promise<string> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#full(owner)) return Promise.reject(this.#queueFull(job));
    return new Promise<string>((resolve, reject) => {
      const call: Call = { owner, job, signal, resolve, reject, onAbort: () => this.#abort(call) };
      const idle = this.#idleSlot();
      if (idle) this.#dispatch(idle, call);
      else {
        signal?.addEventListener('abort', call.onAbort, { once: true });
        this.#queue.push(owner, call);
        this.#grow();
      }
    });
  }

  /** Workers alive, running a call, calls waiting, and workers started since the pool was made. */
  stats(): { workers: number; busy: number; queued: number; started: number } {
    const slots = [...this.#slots];
    return {
      workers: slots.length,
      busy: slots.filter((slot) => slot.call).length,
      queued: this.#queue.size,
      started: this.#started,
    };
  }

  /**
   * Terminates every worker and fails the calls queued or running with SandboxClosedError. The
   * pool stays usable: a later call starts a worker again (a registry shared by two runners
   * keeps working after one of them closes).
   */
  close(): void {
    for (const call of this.#queue.drain()) this.#reject(call, closedError(call.job));
    for (const slot of [...this.#slots]) this.#kill(slot, (call) => closedError(call.job));
  }

  /**
   * The queue holds `maxQueue` calls beyond those the workers starting, or still allowed to
   * start, will take: a pool that has not grown to its size yet refuses nothing. A run with no
   * call waiting always gets in line (the queue then holds at most one more call per run), so
   * the run that filled the queue is the one refused.
   */
  #full(owner: string): boolean {
    if (this.#idleSlot()) return false;
    // maxQueue 0 means no call waits, not even a run's first.
    if (this.maxQueue > 0 && this.#queue.waiting(owner) === 0) return false;
    const starting = [...this.#slots].filter((slot) => !slot.ready).length;
    const spare = this.size - this.#slots.size;
    return this.#queue.size >= this.maxQueue + starting + spare;
  }

  #idleSlot(): Slot | undefined {
    for (const slot of this.#slots) if (slot.ready && !slot.call) return slot;
    return undefined;
  }

  #queueFull(job: SandboxJob): SandboxQueueFullError {
    const { busy, queued } = this.stats();
    const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
    return new SandboxQueueFullError(
      `${job.label}: the code sandbox is busy (${plural(busy, 'worker')} running, ${plural(queued, 'call')} waiting, ` +
        `the most the queue holds: sandbox.maxQueue = ${this.maxQueue}); try again later`,
    );
  }

  #dispatch(slot: Slot, call: Call): void {
    clearTimeout(slot.idle);
    const id = this.#nextId++;
    slot.call = call;
    slot.callId = id;
    call.signal?.addEventListener('abort', call.onAbort, { once: true });
    // A worker with a call keeps the process alive; the caller is waiting for it.
    slot.worker.ref();
    slot.deadline = setTimeout(
      () => this.#kill(slot, (running) => new NonRetryableError(timeLimitMessage(running.job))),
      call.job.timeoutMs + DEADLINE_GRACE_MS,
    );
    slot.worker.postMessage({ id, job: call.job } satisfies JobMessage);
  }

  /** Starts workers for the waiting calls, up to the pool's size. */
  #grow(): void {
    const starting = [...this.#slots].filter((slot) => !slot.ready).length;
    let wanted = Math.min(this.#queue.size - starting, this.size - this.#slots.size);
    for (; wanted > 0; wanted--) this.#spawn();
  }

  #spawn(): void {
    const memoryMiB = Math.ceil(this.#memoryBytes / MiB);
    const worker = new Worker(WORKER_URL, {
      workerData: { memoryBytes: this.#memoryBytes } satisfies SandboxWorkerData,
      // The worker's own JS heap holds only the job's JSON text and the result's, each bounded
      // by the QuickJS memory; the WebAssembly memory is outside it and capped by the module.
      resourceLimits: { maxOldGenerationSizeMb: 64 + 4 * memoryMiB },
      // A worker inherits the process's flags, but Node refuses some for a worker: the one of
      // `node --input-type=module -e …` (for a worker started from a file), and --expose-gc.
      execArgv: process.execArgv.filter((arg) => !arg.startsWith('--input-type') && !/^--expose[-_]gc$/.test(arg)),
    });
    const slot: Slot = { worker, ready: false };
    this.#slots.add(slot);
    this.#started++;
    worker.on('message', (message: WorkerMessage) => this.#onMessage(slot, message));
    worker.on('error', (error: Error & { code?: string }) => {
      if (!this.#slots.has(slot)) return;
      // A worker that cannot start (a broken install) would fail the same way again: fail the
      // waiting calls rather than starting another.
      if (!slot.ready) this.#failQueue(error);
      this.#kill(slot, (call) =>
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new NonRetryableError(memoryLimitMessage(call.job), { cause: error })
          : new NonRetryableError(`${call.job.label} crashed the sandbox: ${error.message}`, { cause: error }),
      );
    });
    worker.on('exit', () => {
      if (this.#slots.has(slot))
        this.#kill(slot, (call) => new NonRetryableError(`${call.job.label} crashed the sandbox`));
    });
  }

  #onMessage(slot: Slot, message: WorkerMessage): void {
    if (message.type === 'ready') {
      slot.ready = true;
      this.#next(slot);
      return;
    }
    const { call } = slot;
    if (!call || message.id !== slot.callId) return;
    this.#release(slot);
    const { reply } = message;
    if (reply.retire) this.#kill(slot);
    if (reply.ok) this.#resolve(call, reply.json);
    else if (reply.resultBytes !== undefined)
      this.#reject(call, new SandboxResultTooLargeError(reply.message, reply.resultBytes));
    else this.#reject(call, new NonRetryableError(reply.message));
    if (!reply.retire) this.#next(slot);
  }

  /** Gives an idle worker the next waiting call, or lets it go unref'd until it idles out. */
  #next(slot: Slot): void {
    const call = this.#queue.shift();
    if (call) {
      call.signal?.removeEventListener('abort', call.onAbort);
      this.#dispatch(slot, call);
      return;
    }
    slot.worker.unref();
    slot.idle = setTimeout(() => this.#kill(slot), IDLE_MS).unref();
  }

  #abort(call: Call): void {
    const reason = call.signal?.reason ?? new NonRetryableError(`${call.job.label} was aborted`);
    if (this.#queue.remove(call.owner, call)) {
      this.#reject(call, reason);
      return;
    }
    // Running: QuickJS cannot be stopped from outside but its thread can.
    const slot = [...this.#slots].find((candidate) => candidate.call === call);
    if (slot) this.#kill(slot, () => reason);
  }

  /** Terminates a worker, failing its call (if any) with `error`, and starts a replacement if calls wait. */
  #kill(slot: Slot, error?: (call: Call) => unknown): void {
    if (!this.#slots.delete(slot)) return;
    const { call } = slot;
    this.#release(slot);
    clearTimeout(slot.idle);
    slot.worker.removeAllListeners('message');
    void slot.worker.terminate().catch(() => undefined);
    if (call) this.#reject(call, error?.(call) ?? new NonRetryableError(`${call.job.label} crashed the sandbox`));
    this.#grow();
  }

  #release(slot: Slot): void {
    clearTimeout(slot.deadline);
    slot.call = undefined;
    slot.callId = undefined;
  }

  #failQueue(error: Error): void {
    for (const call of this.#queue.drain()) {
      this.#reject(call, new NonRetryableError(`${call.job.label}: the code sandbox did not start: ${error.message}`));
    }
  }

  #resolve(call: Call, json: string): void {
    call.signal?.removeEventListener('abort', call.onAbort);
    call.resolve(json);
  }

  #reject(call: Call, error: unknown): void {
    call.signal?.removeEventListener('abort', call.onAbort);
    call.reject(error);
  }
}

function closedError(job: SandboxJob): SandboxClosedError {
  return new SandboxClosedError(`${job.label}: the code sandbox was closed`);
}

function positiveInt(value: number | undefined, fallback: number, name: string, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) throw new RangeError(`sandbox ${name} must be an integer ≥ ${min}`);
  return value;
}
