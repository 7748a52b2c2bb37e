/**
 * The live event bus of one API process. Events reach it from `store.onEvents` — every commit
 * this process makes, whoever makes it: the in-process runner, a Temporal worker's activities,
 * the Inngest function's steps, a cancel — from `publish` by the poller in services.ts (what a
 * worker in another process wrote), from `refresh(runId)`, and, through the transport, from
 * other API processes. Subscribers get a run's stored events first, then the live ones, with nothing
 * lost or duplicated in between; consecutive token deltas of one step that are ready at once
 * are coalesced, so a fast model cannot flood a browser.
 *
 * Multi-instance seam: everything this process learns goes through `transport.publish`. The
 * LocalTransport (one process) hands it straight back to `deliver`; the PgTransport
 * (pg-transport.ts, when the store is PostgreSQL) delivers it here at once and NOTIFYs which
 * seqs of which run are new, and another process with a subscriber reads those events from
 * the store and calls its `deliver` (its subscribers read the store to fill any gap by seq).
 */
import type { RunStore } from '@weft/adapters/store';
import { isRunEndEvent, type RunEvent, type RunStatus } from '@weft/engine';
import type { Logger } from 'pino';
import { coalesceDeltas } from './coalesce.ts';

/** How long a subscription lets token deltas gather before sending them as one message. */
export const DELTA_WINDOW_MS = 16;

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

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

/**
 * How events travel between API processes. `deliver` hands them to this process's subscribers;
 * `watching(runId)` says whether anyone here would see a run's events (a subscriber of the run or
 * of status changes), so a transport can skip reading what nobody here follows.
 */
export interface BusTransport {
  start(deliver: (events: RunEvent[]) => void, watching?: (runId: string) => boolean): Promise<void>;
  publish(events: RunEvent[]): void;
  stop(): Promise<void>;
}

/** One process: publishing is delivering. */
export class LocalTransport implements BusTransport {
  #deliver: ((events: RunEvent[]) => void) | undefined;
  async start(deliver: (events: RunEvent[]) => void): Promise<void> {
    this.#deliver = deliver;
  }
  publish(events: RunEvent[]): void {
    this.#deliver?.(events);
  }
  async stop(): Promise<void> {
    this.#deliver = undefined;
  }
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
  readonly #transport: BusTransport;
  readonly #runs = new Map<string, Set<Queue<RunEvent>>>();
  readonly #status = new Set<Queue<StatusChange>>();
  /**
   * Highest seq delivered per run, so a re-delivered event does not re-announce a status. A run
   * is forgotten once its end event is delivered (the map stays bounded).
   */
  readonly #delivered = new Map<string, number>();
  #statusChain: Promise<void> = Promise.resolve();
  #unsubscribe: (() => void) | undefined;
  #stopped = new AbortController();

  constructor(store: RunStore, log: Logger, transport: BusTransport = new LocalTransport()) {
    this.#store = store;
    this.#log = log;
    this.#transport = transport;
  }

  async start(): Promise<void> {
    await this.#transport.start(
      (events) => this.deliver(events),
      (runId) => this.#runs.has(runId) || this.#status.size > 0,
    );
    this.#unsubscribe = this.#store.onEvents((events) => this.publish(events));
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#stopped.abort();
    for (const queues of this.#runs.values()) for (const queue of queues) queue.wake();
    for (const queue of this.#status) queue.wake();
    await this.#statusChain;
    await this.#transport.stop();
  }

  /** The seam: every event this process learns of goes out through the transport. */
  publish(events: RunEvent[]): void {
    if (events.length > 0) this.#transport.publish(events);
  }

  /**
   * Publishes the run's stored events after the last one delivered (writes that bypassed the
   * runner); all of them when none was, or when the run's end was delivered already.
   */
  async refresh(runId: string): Promise<void> {
    const events = await this.#store.readEvents(runId, this.#delivered.get(runId) ?? 0);
    this.publish(events);
  }

  /** Hands events to this process's subscribers. Called by the transport. */
  deliver(events: RunEvent[]): void {
    for (const event of events) {
      const seen = this.#delivered.get(event.runId) ?? 0;
      if (event.seq <= seen) continue;
      this.#delivered.set(event.runId, event.seq);
      const queues = this.#runs.get(event.runId);
      if (queues) for (const queue of queues) queue.push(event);
      const status = statusOf(event);
      if (status) this.#announce(event, status);
      if (isRunEndEvent(event)) this.#delivered.delete(event.runId);
    }
  }

  /**
   * A run's events with seq > afterSeq: the stored ones, then live ones, ending after the run's
   * end event. Consecutive deltas of one step that are ready at once come as one event carrying
   * the last seq. Ends quietly when the signal aborts or the bus stops.
   */
  async *subscribe(runId: string, afterSeq = 0, options: SubscribeOptions = {}): AsyncGenerator<RunEvent> {
    const signal = options.signal ? AbortSignal.any([options.signal, this.#stopped.signal]) : this.#stopped.signal;
    const queue = new Queue<RunEvent>();
    const queues = this.#runs.get(runId) ?? new Set<Queue<RunEvent>>();
    this.#runs.set(runId, queues);
    queues.add(queue);
    let last = afterSeq;
    try {
      // Live first, then the store: whatever is committed meanwhile is in one or the other (or both).
      let ready = await this.#store.readEvents(runId, last);
      for (;;) {
        for (const event of coalesceDeltas(ready)) {
          if (event.seq <= last) continue;
          last = event.seq;
          yield event;
          if (isRunEndEvent(event)) return;
        }
        await queue.wait(signal);
        if (signal.aborted) return;
        // Only token deltas so far: give the stream a moment to gather more, so a fast model
        // reaches the browser as a few merged messages rather than one per token.
        if (queue.items.every((event) => event.type === 'step.delta')) await delay(DELTA_WINDOW_MS, signal);
        if (signal.aborted) return;
        ready = queue.take().filter((event) => event.seq > last);
        // A gap (an event committed elsewhere and not delivered here): the store has it.
        if (ready.length > 0 && ready[0]!.seq !== last + 1) ready = await this.#store.readEvents(runId, last);
      }
    } finally {
      queues.delete(queue);
      if (queues.size === 0) this.#runs.delete(runId);
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
    return this.#runs.get(runId)?.size ?? 0;
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
