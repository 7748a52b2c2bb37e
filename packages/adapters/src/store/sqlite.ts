/**
 * The embedded store: one SQLite file through `node:sqlite`.
 *
 * Durability: WAL with synchronous=NORMAL. A commit has been written to the WAL (handed to the
 * OS) when it returns, so it survives the process crashing or being SIGKILLed — the crash model
 * of the in-process runner. Only an OS crash or power loss can lose the last commits (never
 * corrupt the file); FULL would fsync each commit and cost several times as much.
 *
 * The run log is one row per (run, commit) in a rowid range per run (see migrations/0001_initial.ts
 * and SqliteRunLogTable), so a step's commit is ONE autocommit INSERT that appends one row:
 * the same statement count and about the same pages as the raw single-row insert it is measured
 * against. A commit over 256 kB of events takes several rows (sqlite-log-rows.ts).
 */

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { eventKey, type Json, type RunEvent, type RunEventInput } from '@weft/engine';
import { Kysely } from 'kysely';
import { KyselyChatStore } from './chat-store.ts';
import { SqliteFlowStore, type SyncWriter } from './flow-store.ts';
import { feedWarning, KyselyRunStore } from './kysely-store.ts';
import { migrateToLatest } from './migrations/index.ts';
import { RunKeys, stepIdOf } from './run-keys.ts';
import { journalKey, type SqliteStoreDatabase, type StoreDatabase } from './schema.ts';
import { NodeSqliteDatabase, NodeSqliteDialect } from './sqlite-dialect.ts';
import { SqliteCommitFeed } from './sqlite-feed.ts';
import { eventsOfRows, eventsOfRowsNow, logRows, rowsForPage, type StoredRow } from './sqlite-log-rows.ts';
import { deleteRunTree, SqliteRunRows } from './sqlite-run-rows.ts';
import { prepareStatements, SEQ_SPAN, type Statements } from './sqlite-statements.ts';
import type { ChatStore, CommitBatch, FlowStore, JournalEntry, NewRun, RunRecord, RunStore } from './types.ts';
import { completedTurns, hasTurnUsage, startedModel, usageOfTurns } from './usage.ts';

/** How long a writer waits for another process's write transaction before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

/** Positions must stay safe integers in JS (node:sqlite refuses to read a larger INTEGER as number). */
const MAX_RUN_NUMBER = 2 ** 53 / SEQ_SPAN;

/** Runs whose dedupe keys stay in memory (about one map entry per step, see RunKeys). */
const KEY_CACHE_RUNS = 1_000;

/** What the store knows of a run's log: its keys and where it ends. */
interface RunState {
  num: number;
  /** num × SEQ_SPAN: a row's position is base + its first seq. */
  base: number;
  /** The last seq taken (0: none); the next row begins at last + 1. */
  last: number;
  keys: RunKeys;
  /** Each llm step's model, from its `step.started`: what a model turn's tokens are counted under. */
  /** The model of each llm step started, for its turns' usage; made by the first. */
  models: Map<string, string> | undefined;
  /** The run's fixtures, read when a model turn first completes (they never change). */
  fixtures?: Json | null;
}

/** A run's share of one commit. */
interface RunWrite {
  journal: JournalEntry[];
  events: RunEventInput[];
}

class SqliteRunStore extends KyselyRunStore {
  readonly dialect = 'sqlite' as const;
  readonly #raw: DatabaseSync;
  readonly #stmts: Statements;
  /**
   * Each run's dedupe keys and last seq, least recently used forgotten first. Nothing checks the
   * cache up front. Every row begins right after the run's previous row (seqs tile the range),
   * so if anyone (another process on the file) appended after `last`, a row begins at
   * `last + 1` and ours, at the same position, is not inserted: the commit then catches up
   * under the write lock and appends after theirs. So a commit needs neither a key index (two
   * more scattered pages per commit) nor a max(seq) lookup, only its INSERT.
   */
  readonly #runs = new Map<string, RunState>();
  /** The run last moved to the end of `#runs`. */
  #lastUsed: string | undefined;
  readonly flows: FlowStore;
  readonly chats: ChatStore;
  readonly #sync: SyncWriter;
  readonly #rows: SqliteRunRows;

  constructor(db: Kysely<StoreDatabase>, raw: DatabaseSync, path: string) {
    super(db);
    this.#raw = raw;
    const openRuns = raw.prepare("SELECT id FROM runs WHERE status IN ('running', 'waiting')");
    const dataVersion = raw.prepare('PRAGMA data_version');
    let seenVersion = dataVersion.get()?.data_version;
    this.feed = new SqliteCommitFeed(
      path,
      this.feedHost(feedWarning),
      async () => openRuns.all().map((row) => String(row.id)),
      () => {
        const now = dataVersion.get()?.data_version;
        const changed = now !== seenVersion;
        seenVersion = now;
        return changed;
      },
    );
    this.#rows = new SqliteRunRows(raw);
    this.#stmts = prepareStatements(db.withTables<Pick<SqliteStoreDatabase, 'runs' | 'run_log'>>(), raw);
    const s = this.#stmts;
    this.#sync = {
      transaction: <T>(fn: () => T): T => {
        s.begin.run();
        try {
          const result = fn();
          s.commit.run();
          return result;
        } catch (error) {
          if (raw.isTransaction) s.rollback.run();
          throw error;
        }
      },
      all: (query) => {
        const { sql: text, parameters } = query.compile();
        return raw.prepare(text).all(...(parameters as SQLInputValue[])) as Record<string, unknown>[];
      },
      run: (query) => {
        const { sql: text, parameters } = query.compile();
        return raw.prepare(text).run(...(parameters as SQLInputValue[]));
      },
    };
    this.flows = new SqliteFlowStore(db, this.#sync);
    this.chats = new KyselyChatStore(db);
  }

  // The run-row operations of every execution, on prepared statements (sqlite-run-rows.ts).
  override async createRun(run: NewRun): Promise<void> {
    this.#rows.create(run);
  }
  override async getRun(id: string): Promise<RunRecord | undefined> {
    return this.#rows.get(id);
  }
  override async claimRun(id: string, claim: Parameters<RunStore['claimRun']>[1]): Promise<boolean> {
    return this.#rows.claim(id, claim);
  }
  override async renewLease(id: string, owner: string, leaseUntil: number): Promise<boolean> {
    return this.#rows.renew(id, owner, leaseUntil);
  }
  override async releaseRun(id: string, owner: string): Promise<void> {
    this.#rows.release(id, owner);
  }
  override async updateRun(id: string, patch: Parameters<RunStore['updateRun']>[1]): Promise<void> {
    this.#rows.update(id, patch);
  }

  /** The run and its descendants with their logs and approvals (sqlite-run-rows.ts). */
  override async deleteRun(id: string): Promise<boolean> {
    const deleted = deleteRunTree(
      this.db.withTables<Pick<SqliteStoreDatabase, 'runs' | 'run_log'>>(),
      this.#raw,
      this.#sync,
      id,
    );
    for (const runId of deleted) this.#runs.delete(runId);
    return deleted.length > 0;
  }

  /**
   * The hot path, run synchronously on statements prepared at open: Kysely's async pipeline
   * costs more per statement than SQLite spends writing it. One row per run: a commit of one
   * run (a sequential step) is a single autocommit INSERT; several runs share one transaction.
   */
  override async commit(batches: CommitBatch[]): Promise<RunEvent[]> {
    const writes = byRun(batches);
    if (writes.size === 0) return [];
    const s = this.#stmts;
    const at = Date.now();
    const stored: RunEvent[] = [];
    try {
      // A model turn's tokens are counted in the same transaction as its events.
      if (writes.size > 1 || hasTurnUsage(writes.values().next().value!.events)) s.begin.run();
      for (const [runId, write] of writes) {
        const from = stored.length;
        let run = this.#state(runId);
        if (!this.#append(runId, run, write, at, stored)) {
          // Someone else appended to the run since we read it. Take the write lock so nobody else
          // can, read what they wrote (their keys count for dedupe) and append after it.
          if (!this.#raw.isTransaction) s.begin.run();
          this.#catchUp(run);
          if (!this.#append(runId, run, write, at, stored)) {
            // The run is not the one we knew (deleted, or replaced under the same id): read it afresh.
            this.#runs.delete(runId);
            run = this.#state(runId);
            if (!this.#append(runId, run, write, at, stored)) {
              throw new Error(`run store: the log of run ${runId} changed under the write lock`);
            }
          }
        }
        if (stored.length > from) this.#countUsage(runId, run, from === 0 ? stored : stored.slice(from));
      }
      if (this.#raw.isTransaction) s.commit.run();
    } catch (error) {
      // A failed statement leaves the transaction open (SQLite rolls back only that statement).
      if (this.#raw.isTransaction) s.rollback.run();
      // Keys and seqs recorded for the rolled-back rows are wrong now: read them again next time.
      for (const runId of writes.keys()) this.#runs.delete(runId);
      throw error;
    }
    return this.announce(stored);
  }

  /**
   * Dedupes `write` against the run's keys and appends what is new as one row after `run.last`.
   * Returns false, having changed nothing, when the run's log does not end at `run.last` any more.
   */
  #append(runId: string, run: RunState, write: RunWrite, at: number, stored: RunEvent[]): boolean {
    const { keys } = run;
    // kind, stepId, key of each key recorded here, to forget them if the append does not happen.
    const added: unknown[] = [];
    const journal: JournalEntry[] = [];
    for (const entry of write.journal) {
      const key = journalKey(entry.stepId);
      // The first recorded result of a step stands, as the first event with a key does.
      if (!keys.add('journal', entry.stepId, key)) continue;
      added.push('journal', entry.stepId, key);
      journal.push(entry);
    }
    const events: RunEventInput[] = [];
    for (const event of write.events) {
      const key = eventKey(event);
      if (key !== null) {
        // Already held: a replay re-emitting a fact. Skip it.
        if (!keys.add(event.type, stepIdOf(event), key)) continue;
        added.push(event.type, stepIdOf(event), key);
      }
      events.push(event);
    }
    // All held already (a replay). Keys only ever get added to a run, so they are right unless
    // the run was replaced under the same id since they were read: its number says so.
    if (journal.length === 0 && events.length === 0) return this.#stmts.runNumber.get(runId)?.num === run.num;
    // Events take consecutive seqs; a row without events still takes one, so it has a position.
    const first = run.last + 1;
    const last = run.last + Math.max(events.length, 1);
    if (last >= SEQ_SPAN) throw new Error(`run store: run ${runId} would exceed ${SEQ_SPAN - 1} log seqs`);
    // Large commits take several rows (sqlite-log-rows.ts); the journal goes with the first.
    const rows = logRows(events);
    const journalJson = journal.length === 0 ? null : JSON.stringify(journal);
    const { changes } = this.#stmts.append.run(
      run.base + first,
      rows[0]?.json ?? null,
      journalJson,
      at,
      runId,
      run.num,
    );
    for (const row of rows.slice(1)) {
      if (changes !== 0) this.#stmts.append.run(run.base + first + row.offset, row.json, null, at, runId, run.num);
    }
    if (changes === 0) {
      for (let i = 0; i < added.length; i += 3) keys.remove(added[i] as string, added[i + 1], added[i + 2] as string);
      return false;
    }
    run.last = last;
    // A shallow copy: the caller's nested values are shared, as they were already serialized.
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      stored.push({ ...event, runId, seq: first + i, at });
      noteModel(run, event);
    }
    return true;
  }

  /**
   * Adds the model turns among a run's newly stored events to its token counts (events a replay
   * re-emitted were not stored, so nothing is counted twice). Inside the commit's transaction.
   */
  #countUsage(runId: string, run: RunState, events: RunEvent[]): void {
    const turns = completedTurns(events);
    if (turns.length === 0) return;
    if (run.fixtures === undefined) {
      const text = this.#stmts.fixtures.get(runId)?.fixtures;
      run.fixtures = typeof text === 'string' ? (JSON.parse(text) as Json) : null;
    }
    let input = 0;
    let output = 0;
    for (const row of usageOfTurns(turns, (id) => run.models?.get(id), run.fixtures)) {
      this.#stmts.addUsage.run(runId, row.model, row.free ?? '', row.turns, row.inputTokens, row.outputTokens);
      input += row.inputTokens;
      output += row.outputTokens;
    }
    this.#stmts.addTokens.run(input, output, runId);
  }

  /** The cached state of a run (now the most recently used), or its log read from the file. */
  #state(runId: string): RunState {
    let run = this.#runs.get(runId);
    if (run !== undefined) {
      // Moved to the end unless it is there already (a run's steps commit one after another).
      if (runId !== this.#lastUsed) {
        this.#runs.delete(runId);
        this.#runs.set(runId, run);
        this.#lastUsed = runId;
      }
      return run;
    }
    const num = this.#stmts.runNumber.get(runId)?.num as number | undefined;
    if (num === undefined) throw new Error(`run store: no run ${runId}`);
    if (num >= MAX_RUN_NUMBER) {
      throw new Error(`run store: run ${runId} has number ${num}; SQLite run numbers must stay below 2^29`);
    }
    run = { num, base: num * SEQ_SPAN, last: 0, keys: new RunKeys(), models: undefined };
    this.#catchUp(run);
    this.#runs.set(runId, run);
    this.#lastUsed = runId;
    if (this.#runs.size > KEY_CACHE_RUNS) this.#runs.delete(this.#runs.keys().next().value!);
    return run;
  }

  /** Adds the keys of the run's rows after `run.last` and moves `last` to the end of the log. */
  #catchUp(run: RunState): void {
    for (const row of this.#stmts.rowsAfter.iterate(run.base + run.last, run.base + SEQ_SPAN)) {
      if (row.journal !== null) {
        for (const entry of JSON.parse(row.journal as string) as JournalEntry[]) {
          run.keys.add('journal', entry.stepId, journalKey(entry.stepId));
        }
      }
      let count = 0;
      if (row.events !== null) {
        const events = JSON.parse(row.events as string) as RunEventInput[];
        count = events.length;
        for (const event of events) {
          const key = eventKey(event);
          if (key !== null) run.keys.add(event.type, stepIdOf(event), key);
          noteModel(run, event);
        }
      }
      run.last = (row.pos as number) - run.base + Math.max(count, 1) - 1;
    }
  }

  /** In commit order. */
  override async loadJournal(runId: string): Promise<JournalEntry[]> {
    const entries: JournalEntry[] = [];
    for (const row of this.#stmts.journal.iterate(runId)) {
      for (const entry of JSON.parse(row.journal as string) as JournalEntry[]) entries.push(entry);
    }
    return entries;
  }

  override async readEvents(
    runId: string,
    afterSeq = 0,
    limit = Number.POSITIVE_INFINITY,
    maxBytes?: number,
  ): Promise<RunEvent[]> {
    // Clamped: below 0 the range would reach into the previous run's positions.
    const after = Math.max(afterSeq, 0);
    if (limit <= 0) return [];
    const rows = this.#stmts.events.iterate(after, runId) as Iterable<StoredRow>;
    // By bytes: the rows a page reaches are copied out, then parsed with turns of the event loop.
    if (maxBytes !== undefined) return eventsOfRows(runId, rowsForPage(rows, after, maxBytes), after, limit);
    return eventsOfRowsNow(runId, rows, after, limit);
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.#raw.isOpen) this.#raw.close();
  }
}

/** Remembers the model an llm step's `step.started` names. */
function noteModel(run: RunState, event: RunEventInput): void {
  const model = startedModel(event);
  if (model === undefined) return;
  run.models ??= new Map();
  run.models.set((event as { stepId: string }).stepId, model);
}

/** Each run's journal entries and events of a commit, in batch order. */
function byRun(batches: CommitBatch[]): Map<string, RunWrite> {
  const writes = new Map<string, RunWrite>();
  for (const { runId, journal, events } of batches) {
    if (journal.length === 0 && events.length === 0) continue;
    const write = writes.get(runId);
    if (write === undefined) writes.set(runId, { journal, events });
    else writes.set(runId, { journal: [...write.journal, ...journal], events: [...write.events, ...events] });
  }
  return writes;
}

/**
 * Opens (creating the file and its directory if needed) and migrates a SQLite store; ':memory:'
 * works too. Other processes may open the same file. Within one process open it once: commit
 * waits for the write lock synchronously, so it would stall on a second store of the same
 * process holding that lock across an await (only its migration ever does).
 */
export async function openSqliteStore(path: string): Promise<RunStore> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const raw = new DatabaseSync(path, { timeout: BUSY_TIMEOUT_MS, enableForeignKeyConstraints: true });
  try {
    raw.exec('PRAGMA journal_mode = WAL');
    raw.exec('PRAGMA synchronous = NORMAL');
    const db = new Kysely<StoreDatabase>({ dialect: new NodeSqliteDialect(new NodeSqliteDatabase(raw)) });
    await migrateToLatest(db as unknown as Kysely<unknown>);
    return new SqliteRunStore(db, raw, path);
  } catch (error) {
    if (raw.isOpen) raw.close();
    throw error;
  }
}
