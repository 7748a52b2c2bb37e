/**
 * The bus transport for several API processes on one PostgreSQL database: LISTEN/NOTIFY on a
 * dedicated connection. Events never travel in a notification (payloads are capped at 8000
 * bytes and the store already has them): a process delivers its own events locally at once and
 * NOTIFYs `{ process, run, first seq, last seq }`, one notification per run per batch. Another
 * process that has a subscriber for the run (or for status changes) reads the new events from
 * the store and delivers them to its bus; one that has none only forgets what it knew of the run.
 *
 * A dropped LISTEN connection is reconnected with backoff; notifications published meanwhile
 * wait and go out once connected, and after a reconnect every run this process follows is read
 * again from the store, so what arrived while it was deaf is not lost.
 */
import { randomUUID } from 'node:crypto';
import type { RunStore } from '@weft/adapters/store';
import { isRunEndEvent, type RunEvent } from '@weft/engine';
import pg from 'pg';
import type { Logger } from 'pino';
import type { BusTransport } from './bus.ts';

export const RUN_EVENTS_CHANNEL = 'weft_run_events';
/** The LISTEN connection's name in pg_stat_activity. */
export const APPLICATION_NAME = 'weft-event-bus';
const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;
/** How many ended runs are remembered, so a late notice does not deliver a run's end twice. */
const ENDED_KEPT = 1_000;

/** What a notification carries: who sent it, and which run's seqs (first..last) are new. */
interface Notice {
  p: string;
  r: string;
  f: number;
  s: number;
}

export interface PgTransportOptions {
  /** `postgres://…`, the run store's database. */
  url: string;
  store: RunStore;
  log: Logger;
  channel?: string;
}

export class PgTransport implements BusTransport {
  /** This process, in every notification it sends (its own are ignored on receipt). */
  readonly processId = randomUUID();
  readonly #url: string;
  readonly #store: RunStore;
  readonly #log: Logger;
  readonly #channel: string;
  #deliver: ((events: RunEvent[]) => void) | undefined;
  #watching: (runId: string) => boolean = () => true;
  #client: pg.Client | undefined;
  #connected = false;
  #stopped = false;
  #backoff = MIN_BACKOFF_MS;
  #reconnectTimer: NodeJS.Timeout | undefined;
  /** Runs to announce: first and last seq published since the last NOTIFY. */
  readonly #outbox = new Map<string, { f: number; s: number }>();
  #flushScheduled = false;
  #flushing: Promise<void> = Promise.resolve();
  /** Highest seq this process has delivered per followed run. */
  readonly #known = new Map<string, number>();
  /** Runs that ended here lately, with their last seq: a late notice of them is old news. */
  readonly #ended = new Map<string, number>();
  /** Runs being read from the store; a notice meanwhile marks the run to be read again. */
  readonly #reading = new Map<string, { again: boolean; done: Promise<void> }>();

  constructor(options: PgTransportOptions) {
    this.#url = options.url;
    this.#store = options.store;
    this.#log = options.log;
    this.#channel = options.channel ?? RUN_EVENTS_CHANNEL;
    if (!/^[a-z_][a-z0-9_]*$/.test(this.#channel)) throw new Error(`invalid channel name '${this.#channel}'`);
  }

  /** Connects and listens; fails when the database cannot be reached at start. */
  async start(deliver: (events: RunEvent[]) => void, watching?: (runId: string) => boolean): Promise<void> {
    this.#deliver = deliver;
    if (watching) this.#watching = watching;
    this.#stopped = false;
    await this.#connect();
  }

  publish(events: RunEvent[]): void {
    // Here first, at once; then the other processes.
    this.#deliver?.(events);
    for (const event of events) {
      this.#note(event);
      const entry = this.#outbox.get(event.runId);
      if (entry) {
        entry.f = Math.min(entry.f, event.seq);
        entry.s = Math.max(entry.s, event.seq);
      } else this.#outbox.set(event.runId, { f: event.seq, s: event.seq });
    }
    this.#scheduleFlush();
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    // What is published up to now still goes out.
    this.#flushScheduled = false;
    await this.#flush();
    this.#stopped = true;
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    await Promise.allSettled([...this.#reading.values()].map((reading) => reading.done));
    const client = this.#client;
    this.#client = undefined;
    this.#connected = false;
    this.#deliver = undefined;
    if (client) await client.end().catch(() => undefined);
  }

  /** True while the LISTEN connection is up (for tests and health). */
  get connected(): boolean {
    return this.#connected;
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url, keepAlive: true, application_name: APPLICATION_NAME });
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, undefined));
    client.on('notification', (message) => {
      if (message.channel === this.#channel && message.payload) this.#receive(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.#channel}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    const reconnected = this.#client !== undefined;
    this.#client = client;
    this.#connected = true;
    this.#backoff = MIN_BACKOFF_MS;
    if (reconnected) {
      this.#log.info({ channel: this.#channel }, 'event bus LISTEN connection restored');
      // Whatever was notified while deaf: read every followed run again.
      for (const runId of this.#known.keys()) this.#read(runId, 0);
    }
    if (this.#outbox.size > 0) this.#scheduleFlush();
  }

  #lost(client: pg.Client, error: Error | undefined): void {
    if (client !== this.#client || !this.#connected) return;
    this.#connected = false;
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
    if (this.#stopped) return;
    this.#log.warn({ err: error, channel: this.#channel }, 'event bus LISTEN connection lost; reconnecting');
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#stopped || this.#reconnectTimer) return;
    const delay = this.#backoff;
    this.#backoff = Math.min(this.#backoff * 2, MAX_BACKOFF_MS);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      this.#connect().catch((error: unknown) => {
        this.#log.warn({ err: error, retryInMs: this.#backoff }, 'event bus reconnect failed');
        this.#scheduleReconnect();
      });
    }, delay);
    this.#reconnectTimer.unref();
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled || this.#stopped) return;
    this.#flushScheduled = true;
    // One notification per run for everything published in this turn of the event loop.
    setImmediate(() => {
      if (!this.#flushScheduled) return;
      this.#flushScheduled = false;
      void this.#flush();
    });
  }

  /** NOTIFYs the outbox in one round trip; kept for the next connection when this one fails. */
  #flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      const client = this.#client;
      if (!client || !this.#connected || this.#outbox.size === 0) return;
      const batch = [...this.#outbox];
      this.#outbox.clear();
      const payloads = batch.map(([r, { f, s }]) => JSON.stringify({ p: this.processId, r, f, s } satisfies Notice));
      try {
        await client.query('SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload', [
          this.#channel,
          payloads,
        ]);
      } catch (error) {
        // Back in the outbox (merged with anything newer): the next connection sends them.
        for (const [runId, range] of batch) {
          const entry = this.#outbox.get(runId);
          this.#outbox.set(runId, entry ? { f: Math.min(entry.f, range.f), s: Math.max(entry.s, range.s) } : range);
        }
        this.#log.warn({ err: error, runs: batch.length }, 'event bus NOTIFY failed; will retry');
      }
    });
    return this.#flushing;
  }

  #receive(payload: string): void {
    let notice: Notice;
    try {
      notice = JSON.parse(payload) as Notice;
    } catch {
      return;
    }
    if (notice.p === this.processId || typeof notice.r !== 'string' || !Number.isInteger(notice.s)) return;
    if (!this.#watching(notice.r)) {
      // Nobody here follows the run: a later subscriber reads the store itself.
      this.#known.delete(notice.r);
      return;
    }
    const ended = this.#ended.get(notice.r);
    if (ended !== undefined && notice.s <= ended) return;
    const known = this.#known.get(notice.r);
    if (known !== undefined && notice.s <= known) return;
    this.#read(notice.r, Number.isInteger(notice.f) ? notice.f - 1 : notice.s - 1);
  }

  /** Reads the run's events after what was delivered here (else after `fallback`) and delivers them. */
  #read(runId: string, fallback: number): void {
    const current = this.#reading.get(runId);
    if (current) {
      current.again = true;
      return;
    }
    const reading = { again: false, done: Promise.resolve() };
    this.#reading.set(runId, reading);
    reading.done = (async () => {
      try {
        let after = this.#known.get(runId) ?? fallback;
        do {
          reading.again = false;
          if (this.#stopped) return;
          after = Math.max(after, this.#known.get(runId) ?? after);
          const events = await this.#store.readEvents(runId, after);
          if (events.length === 0 || this.#stopped) continue;
          after = events.at(-1)!.seq;
          for (const event of events) this.#note(event);
          this.#deliver?.(events);
          // The run ended: nothing more to read (and its seq is forgotten, so do not start over).
          if (events.some(isRunEndEvent)) return;
        } while (reading.again);
      } catch (error) {
        this.#log.warn({ err: error, runId }, 'reading events announced by another process failed');
      } finally {
        this.#reading.delete(runId);
      }
    })();
  }

  /** Tracks the highest seq per run; a run that ended is forgotten. */
  #note(event: RunEvent): void {
    if (isRunEndEvent(event)) {
      this.#known.delete(event.runId);
      this.#ended.set(event.runId, event.seq);
      if (this.#ended.size > ENDED_KEPT) this.#ended.delete(this.#ended.keys().next().value as string);
      return;
    }
    const known = this.#known.get(event.runId) ?? 0;
    if (event.seq > known) this.#known.set(event.runId, event.seq);
  }
}
