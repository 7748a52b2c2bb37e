/**
 * Group commit: journal entries and events from every run in this process are queued and
 * written together in one transaction. A 256-wide fan-out of quick steps therefore costs one
 * commit, not 256, while each step's result is still durable before the interpreter uses it
 * (`addJournal` resolves only after its transaction commits).
 *
 * When to write: a journal entry has a step waiting on it, so it is written as soon as the
 * promise callbacks in flight stop adding to the queue (a few microtask hops: the branches of a
 * fan-out finishing together join one transaction). Events alone wait for the next turn of the
 * event loop, where they batch with whatever else finishes. Going round the event loop costs a
 * poll syscall per step (about a tenth of a quick step's time on an in-memory store here), so a
 * journal commit cancels the pending turn when it takes the events with it. It still yields to
 * the event loop at least every YIELD_MS, so a long run of quick steps cannot starve I/O.
 */
import type { RunEvent, RunEventInput } from '@weft/engine';
import type { CommitBatch, JournalEntry, RunStore } from '../store/types.ts';

/** Longest a chain of commits may go without letting the event loop turn (timers, sockets). */
const YIELD_MS = 10;
/** Microtask hops a journal commit waits, at most, for more work to join it. */
const MAX_HOPS = 16;

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

export class GroupCommitter {
  readonly #store: RunStore;
  readonly #onStored: (events: RunEvent[]) => void;
  #queue = new Map<string, CommitBatch>();
  #waiters: Waiter[] = [];
  /** Entries queued so far: a hop that sees it grow waits one more hop. */
  #queued = 0;
  /** The event-loop turn a commit is scheduled on, if any. */
  #turn: ReturnType<typeof setImmediate> | undefined;
  #soon = false;
  /** When the event loop last turned for us. */
  #lastTurnAt = performance.now();
  #flushing: Promise<void> | null = null;
  /** Commits so far; the benchmark reads it to show a fan-out costs one commit. */
  commits = 0;

  constructor(store: RunStore, onStored: (events: RunEvent[]) => void) {
    this.#store = store;
    this.#onStored = onStored;
  }

  /** Queues an event; it is written with the next group. */
  addEvent(runId: string, event: RunEventInput): void {
    this.#batch(runId).events.push(event);
    this.#queued++;
    this.#scheduleTurn();
  }

  /** Queues a journal entry and resolves once it is committed. */
  addJournal(runId: string, entry: JournalEntry): Promise<void> {
    this.#batch(runId).journal.push(entry);
    this.#queued++;
    this.#scheduleSoon();
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Resolves when everything queued so far is committed. */
  async flush(): Promise<void> {
    while (this.#flushing || this.#queue.size > 0) {
      if (this.#flushing) await this.#flushing.catch(() => {});
      else await this.#run();
    }
  }

  #batch(runId: string): CommitBatch {
    let batch = this.#queue.get(runId);
    if (!batch) {
      batch = { runId, journal: [], events: [] };
      this.#queue.set(runId, batch);
    }
    return batch;
  }

  /** A commit on the next turn of the event loop. */
  #scheduleTurn(): void {
    if (this.#turn !== undefined || this.#soon || this.#flushing) return;
    this.#turn = setImmediate(() => {
      this.#turn = undefined;
      this.#lastTurnAt = performance.now();
      void this.#run();
    });
  }

  /** A commit once the queue stops growing, within this turn unless the loop is overdue one. */
  #scheduleSoon(): void {
    if (this.#soon || this.#flushing) return;
    if (performance.now() - this.#lastTurnAt > YIELD_MS) {
      this.#scheduleTurn();
      return;
    }
    this.#soon = true;
    let seen = -1;
    let hops = 0;
    const hop = () => {
      if (this.#queued !== seen && hops++ < MAX_HOPS) {
        seen = this.#queued;
        queueMicrotask(hop);
        return;
      }
      this.#soon = false;
      void this.#run();
    };
    queueMicrotask(hop);
  }

  #run(): Promise<void> {
    if (this.#flushing) return this.#flushing;
    if (this.#queue.size === 0) return Promise.resolve();
    if (this.#turn !== undefined) {
      // This commit takes what the turn was for.
      clearImmediate(this.#turn);
      this.#turn = undefined;
    }
    const batches = [...this.#queue.values()];
    const waiters = this.#waiters;
    this.#queue = new Map();
    this.#waiters = [];
    this.#queued = 0;
    this.#flushing = this.#store.commit(batches).then(
      (stored) => {
        this.commits++;
        this.#flushing = null;
        for (const waiter of waiters) waiter.resolve();
        if (stored.length > 0) this.#onStored(stored);
        this.#scheduleRest();
      },
      (error: unknown) => {
        this.#flushing = null;
        for (const waiter of waiters) waiter.reject(error);
        this.#scheduleRest();
      },
    );
    return this.#flushing;
  }

  /** What was queued while a commit was in flight. */
  #scheduleRest(): void {
    if (this.#waiters.length > 0) this.#scheduleSoon();
    else if (this.#queue.size > 0) this.#scheduleTurn();
  }
}
