/**
 * The SQLite floor: the same kind of database the store uses (a file through node:sqlite, WAL,
 * synchronous=NORMAL), one table, prepared statements, nothing else. "Raw INSERT+COMMIT" is
 * BEGIN; INSERT one row; COMMIT — the least a durable per-step checkpoint can cost.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { noop } from './measure.ts';

export class RawSqlite {
  readonly #db: DatabaseSync;
  readonly #begin: StatementSync;
  readonly #insert: StatementSync;
  readonly #commit: StatementSync;
  #row = 0;

  constructor(path: string) {
    this.#db = new DatabaseSync(path);
    this.#db.exec('PRAGMA journal_mode = WAL');
    this.#db.exec('PRAGMA synchronous = NORMAL');
    this.#db.exec(
      'CREATE TABLE IF NOT EXISTS raw (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, step_id TEXT NOT NULL, payload TEXT NOT NULL)',
    );
    this.#begin = this.#db.prepare('BEGIN');
    this.#insert = this.#db.prepare('INSERT INTO raw (run_id, step_id, payload) VALUES (?, ?, ?)');
    this.#commit = this.#db.prepare('COMMIT');
  }

  #insertRow(output: unknown = null): void {
    const step = `s${this.#row++}`;
    this.#insert.run('bench', step, JSON.stringify({ stepId: step, status: 'completed', output }));
  }

  /** One INSERT+COMMIT of a step's result (the caller has computed it). */
  commit(output: unknown): void {
    this.#begin.run();
    this.#insertRow(output);
    this.#commit.run();
  }

  /** One step done by hand: await the no-op, then one INSERT+COMMIT. */
  async step(i: number): Promise<void> {
    await noop(i);
    this.#begin.run();
    this.#insertRow();
    this.#commit.run();
  }

  /** `steps` sequential steps; returns µs per step. */
  async sequential(steps: number): Promise<number> {
    const start = performance.now();
    for (let i = 0; i < steps; i++) await this.step(i);
    return ((performance.now() - start) * 1000) / steps;
  }

  /** The best a fan-out can do: all the no-ops at once, then ONE transaction of `width` rows. Returns ms. */
  async fanOut(width: number): Promise<number> {
    const start = performance.now();
    await Promise.all(Array.from({ length: width }, (_, i) => noop(i)));
    this.#begin.run();
    for (let i = 0; i < width; i++) this.#insertRow();
    this.#commit.run();
    return performance.now() - start;
  }

  close(): void {
    this.#db.close();
  }
}
