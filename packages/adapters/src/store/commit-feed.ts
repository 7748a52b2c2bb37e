/**
 * How a store hears of commits other processes make to the same database, so `onEvents` is
 * the one feed of every event written, here or elsewhere: PostgreSQL with LISTEN/NOTIFY
 * (pg-feed.ts), SQLite by watching the file's write-ahead log (sqlite-feed.ts). Events never
 * travel in a notice: the feed reads them from the store, and only for runs someone here is
 * watching.
 */
import { isRunEndEvent, type RunEvent } from '@weft/engine';

/** What a feed needs from its store. */
export interface FeedHost {
  readEvents(runId: string, afterSeq?: number): Promise<RunEvent[]>;
  /** Whether a listener here would want this run's events (the feed skips reading the others). */
  watching(runId: string): boolean;
  /** Hands events another process committed to this process's listeners. */
  deliver(events: RunEvent[]): void;
  /** A problem the feed recovers from by itself, for a log line. */
  warn(message: string, error?: unknown): void;
}

export interface CommitFeed {
  /** This process committed these events: tell the other processes. */
  published(events: RunEvent[]): void;
  /** A listener here wants other processes' commits: start hearing them (idempotent). */
  listen(): void;
  stop(): Promise<void>;
}

/**
 * Reads a run's new events after what this process has seen of it, one read at a time per run
 * (a notice during a read marks it to be read again), and tracks the highest seq seen.
 */
/** How many ended runs are remembered, so a late notice does not deliver a run's end twice. */
const ENDED_KEPT = 1_000;

export class RunCatchUp {
  readonly #host: FeedHost;
  /** Highest seq seen per run; a run that ended is forgotten. */
  readonly known = new Map<string, number>();
  /** Runs that ended lately, with their last seq: a late notice of them is old news. */
  readonly #ended = new Map<string, number>();
  readonly #reading = new Map<string, { again: boolean; done: Promise<void> }>();
  #stopped = false;

  constructor(host: FeedHost) {
    this.#host = host;
  }

  note(events: readonly RunEvent[]): void {
    for (const event of events) {
      if (isRunEndEvent(event)) {
        this.known.delete(event.runId);
        this.#ended.set(event.runId, event.seq);
        if (this.#ended.size > ENDED_KEPT) this.#ended.delete(this.#ended.keys().next().value as string);
        continue;
      }
      if (event.seq > (this.known.get(event.runId) ?? 0)) this.known.set(event.runId, event.seq);
    }
  }

  /** Whether events up to `seq` of the run are news here. */
  isNews(runId: string, seq: number): boolean {
    const ended = this.#ended.get(runId);
    if (ended !== undefined && seq <= ended) return false;
    const known = this.known.get(runId);
    return known === undefined || seq > known;
  }

  /** Reads and delivers the run's events after what is known here (else after `fallback`). */
  read(runId: string, fallback: number): void {
    const current = this.#reading.get(runId);
    if (current) {
      current.again = true;
      return;
    }
    const reading = { again: false, done: Promise.resolve() };
    this.#reading.set(runId, reading);
    reading.done = (async () => {
      try {
        let after = this.known.get(runId) ?? fallback;
        do {
          reading.again = false;
          if (this.#stopped) return;
          after = Math.max(after, this.known.get(runId) ?? after);
          const events = await this.#host.readEvents(runId, after);
          if (events.length === 0 || this.#stopped) continue;
          after = events.at(-1)!.seq;
          this.note(events);
          this.#host.deliver(events);
          if (events.some(isRunEndEvent)) return;
        } while (reading.again);
      } catch (error) {
        this.#host.warn(`reading the events of run ${runId} another process committed failed`, error);
      } finally {
        this.#reading.delete(runId);
      }
    })();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.allSettled([...this.#reading.values()].map((reading) => reading.done));
  }
}
