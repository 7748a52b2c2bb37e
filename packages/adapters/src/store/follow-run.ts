/**
 * Following runs as their events are committed, wherever they are committed: the one way the
 * API's subscriptions (SSE), its event bus and every CLI command follow a run. A follower reads
 * what is stored after its bookmark, then takes what the store's feed hands it (`onEvents`:
 * this process's commits at once, other processes' through the commit feed). Nothing polls.
 */
import { isFinalStatus, isRunEndEvent, type RunEvent } from '@weft/engine';
import type { RunRecord, RunStore } from './types.ts';

export interface NextOptions {
  /** Return `[]` after this long without news (the caller looks at something else). */
  timeoutMs?: number;
  /** Return `[]` as soon as this settles. */
  wake?: Promise<unknown>;
  /** When only token deltas are pending, wait this long for more, so they go out merged. */
  gatherDeltasMs?: number;
}

/** The events of a set of runs (which may grow: a child run joins) after a bookmark per run. */
export class RunFollower {
  readonly #store: RunStore;
  readonly #after = new Map<string, number>();
  /** Runs whose stored events must be read first (just followed). */
  readonly #stale = new Set<string>();
  #heard: RunEvent[] = [];
  #wake: (() => void) | undefined;
  readonly #unfollow: () => void;
  readonly #signal: AbortSignal | undefined;

  constructor(store: RunStore, from: Iterable<readonly [string, number]>, options: { signal?: AbortSignal } = {}) {
    this.#store = store;
    this.#signal = options.signal;
    // Listening before the first read: whatever is committed meanwhile is heard, read, or both.
    this.#unfollow = store.onEvents(
      (events) => {
        const mine = events.filter((event) => this.#after.has(event.runId));
        if (mine.length === 0) return;
        this.#heard.push(...mine);
        this.#poke();
      },
      { watching: (runId) => this.#after.has(runId) },
    );
    for (const [runId, afterSeq] of from) this.add(runId, afterSeq);
    this.#signal?.addEventListener('abort', () => this.#poke(), { once: true });
  }

  /** Follows one more run from after `afterSeq`; a run followed already keeps its bookmark. */
  add(runId: string, afterSeq = 0): void {
    if (this.#after.has(runId)) return;
    this.#after.set(runId, afterSeq);
    this.#stale.add(runId);
    this.#poke();
  }

  has(runId: string): boolean {
    return this.#after.has(runId);
  }

  /** The next events of the followed runs in seq order per run; `[]` on a timeout or wake; undefined once aborted. */
  async next(options: NextOptions = {}): Promise<RunEvent[] | undefined> {
    const started = Date.now();
    for (;;) {
      if (this.#signal?.aborted) return undefined;
      const ready = await this.#take();
      if (ready.length > 0) return ready;
      const left = options.timeoutMs === undefined ? undefined : options.timeoutMs - (Date.now() - started);
      if (left !== undefined && left <= 0) return [];
      const woken = await this.#waitForNews(left, options.wake);
      if (woken === 'wake') return [];
      if (
        options.gatherDeltasMs &&
        this.#stale.size === 0 &&
        this.#heard.length > 0 &&
        this.#heard.every((event) => event.type === 'step.delta')
      )
        await this.#waitForNews(options.gatherDeltasMs, undefined, true);
    }
  }

  close(): void {
    this.#unfollow();
    this.#poke();
  }

  /**
   * What was heard, in order and without repeats, after a first read of each newly followed
   * run. What is heard needs no checking against the store: this process's commits reach the
   * feed whole, another process's are read back whole after what this process has seen of the
   * run (and seqs skip the numbers journal rows take, so a jump is no sign of a loss).
   */
  async #take(): Promise<RunEvent[]> {
    const heard = this.#heard;
    this.#heard = [];
    const out: RunEvent[] = [];
    for (const runId of [...this.#stale]) {
      this.#stale.delete(runId);
      const events = await this.#store.readEvents(runId, this.#after.get(runId) ?? 0);
      for (const event of events) this.#accept(event, out);
    }
    for (const event of heard) this.#accept(event, out);
    return out;
  }

  #accept(event: RunEvent, out: RunEvent[]): void {
    const after = this.#after.get(event.runId);
    if (after === undefined || event.seq <= after) return;
    this.#after.set(event.runId, event.seq);
    out.push(event);
  }

  #waitForNews(ms: number | undefined, wake: Promise<unknown> | undefined, quietOnly = false) {
    return new Promise<'news' | 'timeout' | 'wake'>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (why: 'news' | 'timeout' | 'wake') => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve(why);
      };
      if (!quietOnly && (this.#heard.length > 0 || this.#stale.size > 0)) return done('news');
      this.#wake = () => (quietOnly ? undefined : done('news'));
      if (ms !== undefined) timer = setTimeout(() => done('timeout'), Math.max(ms, 0));
      void wake?.then(() => done('wake'));
      if (this.#signal?.aborted) done('news');
    });
  }

  #poke(): void {
    this.#wake?.();
  }
}

/** One run's events after `afterSeq`, batch by batch, ending after its end event or on abort. */
export async function* followRun(
  store: RunStore,
  runId: string,
  afterSeq = 0,
  options: { signal?: AbortSignal; gatherDeltasMs?: number } = {},
): AsyncGenerator<RunEvent[]> {
  const follower = new RunFollower(store, [[runId, afterSeq]], options.signal ? { signal: options.signal } : {});
  try {
    for (;;) {
      const batch = await follower.next(options.gatherDeltasMs ? { gatherDeltasMs: options.gatherDeltasMs } : {});
      if (!batch) return;
      yield batch;
      if (batch.some(isRunEndEvent)) return;
    }
  } finally {
    follower.close();
  }
}

/** How often a run's row is looked at again once its end event is in: the row follows closely. */
const ROW_LAG_MS = 10;

/**
 * The run's row once its status is final, or undefined when `timeoutMs` passes first. Woken by
 * the run's commits, wherever they are made; once its end event is committed, the row (written
 * right after) is looked at again every few milliseconds.
 */
export async function waitForEnd(store: RunStore, runId: string, timeoutMs: number): Promise<RunRecord | undefined> {
  const deadline = Date.now() + timeoutMs;
  let ended = false;
  let wake: (() => void) | undefined;
  const stop = store.onEvents(
    (events) => {
      const mine = events.filter((event) => event.runId === runId);
      if (mine.length === 0) return;
      ended ||= mine.some(isRunEndEvent);
      wake?.();
    },
    { watching: (id) => id === runId },
  );
  try {
    for (;;) {
      const run = await store.getRun(runId);
      if (!run || isFinalStatus(run.status)) return run;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, ended ? Math.min(left, ROW_LAG_MS) : left);
        wake = done;
      });
    }
  } finally {
    stop();
  }
}
