/**
 * Group commit: journal entries and events from every run in this process are queued and
 * written together in one transaction per turn of the event loop. A 256-wide fan-out of quick
 * steps therefore costs one commit, not 256, while each step's result is still durable before
 * the interpreter uses it (`addJournal` resolves only after its transaction commits).
 */
import type { RunEvent, RunEventInput } from '@weft/engine';
import type { CommitBatch, JournalEntry, RunStore } from '../store/types.ts';

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

export class GroupCommitter {
  readonly #store: RunStore;
  readonly #onStored: (events: RunEvent[]) => void;
  #queue = new Map<string, CommitBatch>();
  #waiters: Waiter[] = [];
  #scheduled = false;
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
    this.#schedule();
  }

  /** Queues a journal entry and resolves once it is committed. */
  addJournal(runId: string, entry: JournalEntry): Promise<void> {
    this.#batch(runId).journal.push(entry);
    this.#schedule();
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

  #schedule(): void {
    if (this.#scheduled || this.#flushing) return;
    this.#scheduled = true;
    // setImmediate runs after the current burst of promise callbacks: everything that finished
    // in this turn of the event loop joins the same transaction.
    setImmediate(() => {
      this.#scheduled = false;
      void this.#run();
    });
  }

  #run(): Promise<void> {
    if (this.#flushing) return this.#flushing;
    if (this.#queue.size === 0) return Promise.resolve();
    const batches = [...this.#queue.values()];
    const waiters = this.#waiters;
    this.#queue = new Map();
    this.#waiters = [];
    this.#flushing = this.#store.commit(batches).then(
      (stored) => {
        this.commits++;
        this.#flushing = null;
        for (const waiter of waiters) waiter.resolve();
        if (stored.length > 0) this.#onStored(stored);
        if (this.#queue.size > 0) this.#schedule();
      },
      (error: unknown) => {
        this.#flushing = null;
        for (const waiter of waiters) waiter.reject(error);
        if (this.#queue.size > 0) this.#schedule();
      },
    );
    return this.#flushing;
  }
}
