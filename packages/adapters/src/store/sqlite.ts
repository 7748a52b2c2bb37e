/**
 * The embedded store: one SQLite file through `node:sqlite`.
 *
 * Durability: WAL with synchronous=NORMAL. A commit has been written to the WAL (handed to the
 * OS) when it returns, so it survives the process crashing or being SIGKILLed — the crash model
 * of the in-process runner. Only an OS crash or power loss can lose the last commits (never
 * corrupt the file); FULL would fsync each commit and cost several times as much.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { eventKey, type RunEvent } from '@weft/engine';
import { type Compilable, Kysely } from 'kysely';
import { KyselyRunStore } from './kysely-store.ts';
import { migrateToLatest } from './migrations/index.ts';
import { journalKey, type StoreDatabase } from './schema.ts';
import { NodeSqliteDatabase, NodeSqliteDialect } from './sqlite-dialect.ts';
import type { CommitBatch, RunStore } from './types.ts';

/** How long a writer waits for another process's write transaction before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

const PARAM = '\u0000weft-param:';

/** Runs whose dedupe keys stay in memory (a few hundred bytes each). */
const KEY_CACHE_RUNS = 1_000;

/** Stands in for a value when a statement is compiled once and bound on every call. */
function param(name: string): never {
  return `${PARAM}${name}` as never;
}

/**
 * Compiles a Kysely query once and prepares it on the raw connection. `params` names the
 * placeholders in the order callers bind them; that this is the order Kysely emitted is checked
 * here, once, so a builder change fails loudly at open instead of binding values to wrong columns.
 */
function prepareCompiled(raw: DatabaseSync, query: Compilable, params: readonly string[]): StatementSync {
  const { sql, parameters } = query.compile();
  const ordered = parameters.length === params.length && params.every((name, i) => parameters[i] === param(name));
  if (!ordered)
    throw new Error(`run store: statement binds [${parameters.join(', ')}], expected [${params.join(', ')}]`);
  return raw.prepare(sql);
}

interface CommitStatements {
  begin: StatementSync;
  commit: StatementSync;
  rollback: StatementSync;
  maxSeq: StatementSync;
  keysAfter: StatementSync;
  insert: StatementSync;
}

function prepareCommitStatements(db: Kysely<StoreDatabase>, raw: DatabaseSync): CommitStatements {
  return {
    // IMMEDIATE: take the write lock first (waiting up to the busy timeout), so the max(seq)
    // read and the inserts that follow it see the same, latest state even with other processes
    // on the file; a deferred transaction could find its read snapshot stale at the first write.
    begin: raw.prepare('BEGIN IMMEDIATE'),
    commit: raw.prepare('COMMIT'),
    rollback: raw.prepare('ROLLBACK'),
    maxSeq: prepareCompiled(
      raw,
      db
        .selectFrom('run_log')
        .select((eb) => eb.fn.max('seq').as('max'))
        .where('run_id', '=', param('runId')),
      ['runId'],
    ),
    keysAfter: prepareCompiled(
      raw,
      db
        .selectFrom('run_log')
        .select('key')
        .where('run_id', '=', param('runId'))
        .where('seq', '>', param('afterSeq'))
        .where('key', 'is not', null),
      ['runId', 'afterSeq'],
    ),
    insert: prepareCompiled(
      raw,
      db.insertInto('run_log').values({
        run_id: param('runId'),
        seq: param('seq'),
        kind: param('kind'),
        key: param('key'),
        type: param('type'),
        payload: param('payload'),
        at: param('at'),
      }),
      ['runId', 'seq', 'kind', 'key', 'type', 'payload', 'at'],
    ),
  };
}

class SqliteRunStore extends KyselyRunStore {
  readonly dialect = 'sqlite' as const;
  readonly #raw: DatabaseSync;
  readonly #stmts: CommitStatements;
  /**
   * Dedupe keys per run, as of `seq`. Inside the write transaction, max(seq) tells whether
   * anyone (another process on the file) wrote since: if so only the rows after `seq` are read.
   * So a commit needs neither a key index (two more scattered pages per commit) nor a lookup.
   * Least recently used runs are forgotten first.
   */
  readonly #keyCache = new Map<string, { keys: Set<string>; seq: number }>();

  constructor(db: Kysely<StoreDatabase>, raw: DatabaseSync) {
    super(db);
    this.#raw = raw;
    this.#stmts = prepareCommitStatements(db, raw);
  }

  /**
   * The hot path, run synchronously on statements prepared at open: Kysely's async pipeline
   * costs more per statement than SQLite spends writing it. The next seq comes from max() on the
   * primary key inside the write transaction, so another process writing the same file cannot
   * make it reuse a number.
   */
  override async commit(batches: CommitBatch[]): Promise<RunEvent[]> {
    if (batches.length === 0) return [];
    const s = this.#stmts;
    const at = Date.now();
    const stored: RunEvent[] = [];
    s.begin.run();
    try {
      for (const { runId, journal, events } of batches) {
        if (journal.length === 0 && events.length === 0) continue;
        const maxSeq = (s.maxSeq.get(runId)?.max as number | null | undefined) ?? 0;
        const cache = this.#keysOf(runId, maxSeq);
        const keys = cache.keys;
        let seq = maxSeq + 1;
        for (const entry of journal) {
          const key = journalKey(entry.stepId);
          // The first recorded result of a step stands, as the first event with a key does.
          if (keys.has(key)) continue;
          keys.add(key);
          s.insert.run(runId, seq++, 'journal', key, 'journal', JSON.stringify(entry), at);
        }
        for (const event of events) {
          const key = eventKey(event);
          if (key !== null) {
            // Already held: a replay re-emitting a fact. Skip it.
            if (keys.has(key)) continue;
            keys.add(key);
          }
          s.insert.run(runId, seq, 'event', key, event.type, JSON.stringify(event), at);
          // A shallow copy: the caller's nested values are shared, as they were already serialized.
          stored.push({ ...event, runId, seq, at });
          seq++;
        }
        cache.seq = seq - 1;
      }
      s.commit.run();
    } catch (error) {
      // A failed statement leaves the transaction open (SQLite rolls back only that statement).
      if (this.#raw.isTransaction) s.rollback.run();
      // Keys added for the rolled-back rows are wrong now: read them again next time.
      for (const { runId } of batches) this.#keyCache.delete(runId);
      throw error;
    }
    return stored;
  }

  #keysOf(runId: string, maxSeq: number): { keys: Set<string>; seq: number } {
    let cache = this.#keyCache.get(runId);
    if (cache) this.#keyCache.delete(runId);
    else cache = { keys: new Set(), seq: 0 };
    if (cache.seq < maxSeq) {
      for (const row of this.#stmts.keysAfter.all(runId, cache.seq)) cache.keys.add(String(row.key));
      cache.seq = maxSeq;
    }
    this.#keyCache.set(runId, cache);
    if (this.#keyCache.size > KEY_CACHE_RUNS) this.#keyCache.delete(this.#keyCache.keys().next().value!);
    return cache;
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.#raw.isOpen) this.#raw.close();
  }
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
    return new SqliteRunStore(db, raw);
  } catch (error) {
    if (raw.isOpen) raw.close();
    throw error;
  }
}
