/**
 * The SQLite commit feed: another process writing the same database file (a `weft worker
 * temporal`, a CLI command next to `weft serve`) appends to its write-ahead log, and the file
 * system tells us (fs.watch on the folder: the -wal file may not exist yet). On a change —
 * gathered for a few milliseconds, one catch-up at a time — the feed reads the new events of
 * the runs listeners here watch that are open or were seen lately, after what this process has
 * seen of them. This process's own commits change the log too: SQLite's data_version tells
 * them apart (it moves only when another connection commits), so they cost one pragma.
 */
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { RunEvent } from '@weft/engine';
import { type CommitFeed, type FeedHost, RunCatchUp } from './commit-feed.ts';

/** Changes closer together than this are read once. */
const GATHER_MS = 5;

export class SqliteCommitFeed implements CommitFeed {
  readonly #file: string;
  readonly #host: FeedHost;
  readonly #openRuns: () => Promise<string[]>;
  readonly #changedElsewhere: () => boolean;
  readonly #catchUp: RunCatchUp;
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  /**
   * `openRuns`: the ids of runs not ended (running or waiting); `changedElsewhere`: whether
   * another connection committed since it was last asked.
   */
  constructor(file: string, host: FeedHost, openRuns: () => Promise<string[]>, changedElsewhere: () => boolean) {
    this.#file = file;
    this.#host = host;
    this.#openRuns = openRuns;
    this.#changedElsewhere = changedElsewhere;
    this.#catchUp = new RunCatchUp(host);
  }

  published(events: RunEvent[]): void {
    this.#catchUp.note(events);
  }

  listen(): void {
    if (this.#watcher || this.#stopped || this.#file === ':memory:') return;
    const name = basename(this.#file);
    try {
      this.#watcher = watch(dirname(this.#file), { persistent: false }, (_kind, changed) => {
        if (changed === `${name}-wal` || changed === name) this.#changed();
      });
      this.#watcher.on('error', (error) => this.#host.warn('watching the database file stopped', error));
    } catch (error) {
      this.#host.warn('cannot watch the database file for other processes’ commits', error);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#watcher?.close();
    clearTimeout(this.#timer);
    await this.#running;
    await this.#catchUp.stop();
  }

  #changed(): void {
    if (this.#stopped || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#running) {
        this.#again = true;
        return;
      }
      this.#running = this.#catchUpAll().finally(() => {
        this.#running = undefined;
        if (this.#again && !this.#stopped) {
          this.#again = false;
          this.#changed();
        }
      });
    }, GATHER_MS);
    this.#timer.unref();
  }

  async #catchUpAll(): Promise<void> {
    try {
      if (!this.#changedElsewhere()) return;
      const runs = new Set([...(await this.#openRuns()), ...this.#catchUp.known.keys()]);
      for (const runId of runs) if (this.#host.watching(runId)) this.#catchUp.read(runId, 0);
    } catch (error) {
      this.#host.warn('reading what other processes committed failed', error);
    }
  }
}
