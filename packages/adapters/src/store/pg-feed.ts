/**
 * The PostgreSQL commit feed: several processes on one database hear each other's commits over
 * LISTEN/NOTIFY. After each commit this process NOTIFYs `{ process, run, first seq, last seq }`
 * (one notice per run per turn of the event loop, through the store's pool); a process whose
 * listeners watch that run reads the new events from the store and delivers them. Payloads stay
 * tiny (NOTIFY caps them at 8000 bytes, and the store has the events already).
 *
 * The LISTEN connection opens when the first listener asks for it. A dropped connection is
 * reconnected with backoff; after a reconnect every run seen lately is read again, so what was
 * committed while deaf is not lost. Notices that fail to send wait for the next try.
 */
import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@weft/engine';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { type CommitFeed, type FeedHost, RunCatchUp } from './commit-feed.ts';

export const COMMITS_CHANNEL = 'weft_run_events';
/** The LISTEN connection's name in pg_stat_activity. */
export const FEED_APPLICATION_NAME = 'weft-commit-feed';
const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

interface Notice {
  /** The process that committed. */
  p: string;
  r: string;
  f: number;
  s: number;
}

export class PgCommitFeed implements CommitFeed {
  readonly processId = randomUUID();
  readonly #url: string;
  readonly #db: Kysely<unknown>;
  readonly #host: FeedHost;
  readonly #catchUp: RunCatchUp;
  #client: pg.Client | undefined;
  #connected = false;
  #listening = false;
  #stopped = false;
  #backoff = MIN_BACKOFF_MS;
  #reconnectTimer: NodeJS.Timeout | undefined;
  readonly #outbox = new Map<string, { f: number; s: number }>();
  #flushScheduled = false;
  #flushing: Promise<void> = Promise.resolve();

  constructor(url: string, db: Kysely<unknown>, host: FeedHost) {
    this.#url = url;
    this.#db = db;
    this.#host = host;
    this.#catchUp = new RunCatchUp(host);
  }

  /** True while the LISTEN connection is up (for tests and health). */
  get connected(): boolean {
    return this.#connected;
  }

  published(events: RunEvent[]): void {
    this.#catchUp.note(events);
    for (const event of events) {
      const entry = this.#outbox.get(event.runId);
      if (entry) {
        entry.f = Math.min(entry.f, event.seq);
        entry.s = Math.max(entry.s, event.seq);
      } else this.#outbox.set(event.runId, { f: event.seq, s: event.seq });
    }
    this.#scheduleFlush();
  }

  listen(): void {
    if (this.#listening || this.#stopped) return;
    this.#listening = true;
    this.#connect().catch((error: unknown) => {
      this.#host.warn('listening for other processes’ commits failed; retrying', error);
      this.#scheduleReconnect();
    });
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    // What is committed up to now is still announced.
    this.#flushScheduled = false;
    await this.#flush();
    this.#stopped = true;
    clearTimeout(this.#reconnectTimer);
    await this.#catchUp.stop();
    const client = this.#client;
    this.#client = undefined;
    this.#connected = false;
    if (client) await client.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.#url,
      keepAlive: true,
      application_name: FEED_APPLICATION_NAME,
    });
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, undefined));
    client.on('notification', (message) => {
      if (message.channel === COMMITS_CHANNEL && message.payload) this.#receive(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${COMMITS_CHANNEL}`);
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
    // Whatever was committed while deaf: read every run seen lately again.
    if (reconnected) for (const runId of this.#catchUp.known.keys()) this.#catchUp.read(runId, 0);
  }

  #lost(client: pg.Client, error: Error | undefined): void {
    if (client !== this.#client || !this.#connected) return;
    this.#connected = false;
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
    if (this.#stopped) return;
    this.#host.warn('the LISTEN connection for other processes’ commits was lost; reconnecting', error);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#stopped || this.#reconnectTimer) return;
    const delay = this.#backoff;
    this.#backoff = Math.min(this.#backoff * 2, MAX_BACKOFF_MS);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      this.#connect().catch((error: unknown) => {
        this.#host.warn('reconnecting the LISTEN connection failed', error);
        this.#scheduleReconnect();
      });
    }, delay);
    this.#reconnectTimer.unref();
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled || this.#stopped) return;
    this.#flushScheduled = true;
    // One notice per run for everything committed in this turn of the event loop.
    setImmediate(() => {
      if (!this.#flushScheduled) return;
      this.#flushScheduled = false;
      void this.#flush();
    });
  }

  /** NOTIFYs the outbox in one round trip on the pool; kept for the next try when it fails. */
  #flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      if (this.#outbox.size === 0) return;
      const batch = [...this.#outbox];
      this.#outbox.clear();
      const payloads = batch.map(([r, { f, s }]) => JSON.stringify({ p: this.processId, r, f, s } satisfies Notice));
      try {
        await sql`SELECT pg_notify(${COMMITS_CHANNEL}, payload) FROM unnest(${payloads}::text[]) AS payload`.execute(
          this.#db,
        );
      } catch (error) {
        for (const [runId, range] of batch) {
          const entry = this.#outbox.get(runId);
          this.#outbox.set(runId, entry ? { f: Math.min(entry.f, range.f), s: Math.max(entry.s, range.s) } : range);
        }
        this.#host.warn('announcing commits to other processes failed; will retry', error);
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
    if (!this.#host.watching(notice.r)) {
      // Nobody here follows the run: a later follower reads the store itself.
      this.#catchUp.known.delete(notice.r);
      return;
    }
    if (!this.#catchUp.isNews(notice.r, notice.s)) return;
    this.#catchUp.read(notice.r, Number.isInteger(notice.f) ? notice.f - 1 : notice.s - 1);
  }
}
