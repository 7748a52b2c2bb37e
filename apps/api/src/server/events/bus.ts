/**
 * The live event feed of one API process, over the store's (`store.onEvents`, which hears
 * every commit to the database: this process's at once — the in-process runner, a Temporal
 * worker's activities, the Inngest function's steps, a cancel — and other processes' through
 * the store's commit feed, PostgreSQL NOTIFY or SQLite's write-ahead log). A run's subscribers
 * read it through `followRun`: its stored events first, then the live ones, with nothing lost or
 * duplicated in between; consecutive token deltas of one step that are ready at once are
 * coalesced, so a fast model cannot flood a browser. Run-status changes of every run go to the
 * `statusChanges` subscribers (the run lists).
 */
import { followRun, type RunStore } from '@weft/adapters/store';
import { isRunEndEvent, type RunEvent, type RunStatus } from '@weft/engine';
import type { Logger } from 'pino';
import { coalesceDeltas } from './coalesce.ts';

/** How long a subscription lets token deltas gather before sending them as one message. */
export const DELTA_WINDOW_MS = 16;

export interface StatusChange {
  runId: string;
  status: RunStatus;
  flowId: string;
  flowVersion: number;
  backend: string;
  parentRunId: string | null;
  /** The seq and time of the event that changed the status. */
  seq: number;
  at: number;
}

/** A wake-up queue: producers push, one consumer awaits. */
class Queue<T> {
  items: T[] = [];
  #wake: (() => void) | undefined;
  push(...items: T[]): void {
    this.items.push(...items);
    this.wake();
  }
  wake(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
  /** Resolves when something is pushed, `wake()` is called, or the signal aborts. */
  wait(signal: AbortSignal | undefined): Promise<void> {
    if (this.items.length > 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.#wake = done;
      signal?.addEventListener('abort', done, { once: true });
    });
  }
  take(): T[] {
    const items = this.items;
    this.items = [];
    return items;
  }
}

export interface SubscribeOptions {
  signal?: AbortSignal;
}

export class EventBus {
  readonly #store: RunStore;
  readonly #log: Logger;
  readonly #status = new Set<Queue<StatusChange>>();
  readonly #subscribers = new Map<string, number>();
  /**
   * Highest seq seen per run, so an event heard twice does not announce a status twice. A run is
   * forgotten once its end event is seen (the map stays bounded).
   */
  readonly #seen = new Map<string, number>();
  #statusChain: Promise<void> = Promise.resolve();
  #unsubscribe: (() => void) | undefined;
  #stopped = new AbortController();

  constructor(store: RunStore, log: Logger) {
    this.#store = store;
    this.#log = log;
  }

  async start(): Promise<void> {
    // Other processes' commits are read only while someone here wants status changes.
    this.#unsubscribe = this.#store.onEvents((events) => this.#statuses(events), {
      watching: () => this.#status.size > 0,
    });
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#stopped.abort();
    for (const queue of this.#status) queue.wake();
    await this.#statusChain;
  }

  /**
   * A run's events with seq > afterSeq: the stored ones, then live ones, ending after the run's
   * end event. Consecutive deltas of one step that are ready at once come as one event carrying
   * the last seq. Ends quietly when the signal aborts or the bus stops.
   */
  async *subscribe(runId: string, afterSeq = 0, options: SubscribeOptions = {}): AsyncGenerator<RunEvent> {
    const signal = options.signal ? AbortSignal.any([options.signal, this.#stopped.signal]) : this.#stopped.signal;
    this.#subscribers.set(runId, (this.#subscribers.get(runId) ?? 0) + 1);
    try {
      for await (const batch of followRun(this.#store, runId, afterSeq, { signal, gatherDeltasMs: DELTA_WINDOW_MS }))
        yield* coalesceDeltas(batch);
    } finally {
      const left = (this.#subscribers.get(runId) ?? 1) - 1;
      if (left > 0) this.#subscribers.set(runId, left);
      else this.#subscribers.delete(runId);
    }
  }

  /** Run status changes of every run this process learns of, as they happen. */
  async *statusChanges(options: SubscribeOptions = {}): AsyncGenerator<StatusChange> {
    const signal = options.signal ? AbortSignal.any([options.signal, this.#stopped.signal]) : this.#stopped.signal;
    const queue = new Queue<StatusChange>();
    this.#status.add(queue);
    try {
      for (;;) {
        await queue.wait(signal);
        if (signal.aborted) return;
        for (const change of queue.take()) yield change;
      }
    } finally {
      this.#status.delete(queue);
    }
  }

  /** Subscribers of one run right now (for tests and metrics). */
  subscriberCount(runId: string): number {
    return this.#subscribers.get(runId) ?? 0;
  }

  /** Announces the status changes in events, each once. */
  #statuses(events: RunEvent[]): void {
    for (const event of events) {
      const seen = this.#seen.get(event.runId) ?? 0;
      if (event.seq <= seen) continue;
      this.#seen.set(event.runId, event.seq);
      const status = statusOf(event);
      if (status) this.#announce(event, status);
      if (isRunEndEvent(event)) this.#seen.delete(event.runId);
    }
  }

  #announce(event: RunEvent, status: RunStatus): void {
    if (this.#status.size === 0) return;
    // In order: each change waits for the run lookup of the one before.
    this.#statusChain = this.#statusChain.then(async () => {
      try {
        const run = await this.#store.getRun(event.runId);
        if (!run) return;
        const change: StatusChange = {
          runId: run.id,
          status,
          flowId: run.flowId,
          flowVersion: run.flowVersion,
          backend: run.backend,
          parentRunId: run.parentRunId,
          seq: event.seq,
          at: event.at,
        };
        for (const queue of this.#status) queue.push(change);
      } catch (error) {
        this.#log.warn({ err: error, runId: event.runId }, 'status change lookup failed');
      }
    });
  }
}

/** The status an event puts its run in, if it changes one. */
function statusOf(event: RunEvent): RunStatus | undefined {
  switch (event.type) {
    case 'run.started':
    case 'approval.resolved':
      return 'running';
    case 'approval.requested':
      return 'waiting';
    case 'run.completed':
      return 'completed';
    case 'run.failed':
      return 'failed';
    case 'run.cancelled':
      return 'cancelled';
    default:
      return undefined;
  }
}
