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
import { encodeNullable, type StoreDatabase } from './schema.ts';
import { NodeSqliteDatabase, NodeSqliteDialect } from './sqlite-dialect.ts';
import type { CommitBatch, RunStore } from './types.ts';

/** How long a writer waits for another process's write transaction before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

const PARAM = '\u0000weft-param:';

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
  insertJournal: StatementSync;
  maxSeq: StatementSync;
  insertEvent: StatementSync;
}

function prepareCommitStatements(db: Kysely<StoreDatabase>, raw: DatabaseSync): CommitStatements {
  return {
    // IMMEDIATE: take the write lock first (waiting up to the busy timeout), so the max(seq)
    // read and the inserts that follow it see the same, latest state even with other processes
    // on the file; a deferred transaction could find its read snapshot stale at the first write.
    begin: raw.prepare('BEGIN IMMEDIATE'),
    commit: raw.prepare('COMMIT'),
    rollback: raw.prepare('ROLLBACK'),
    insertJournal: prepareCompiled(
      raw,
      db
        .insertInto('journal')
        .values({
          run_id: param('runId'),
          step_id: param('stepId'),
          kind: param('kind'),
          input_hash: param('inputHash'),
          status: param('status'),
          output: param('output'),
          error: param('error'),
          created_at: param('at'),
        })
        // The first recorded result of a step stands, as the first event with a key does.
        .onConflict((oc) => oc.columns(['run_id', 'step_id']).doNothing()),
      ['runId', 'stepId', 'kind', 'inputHash', 'status', 'output', 'error', 'at'],
    ),
    maxSeq: prepareCompiled(
      raw,
      db
        .selectFrom('run_events')
        .select((eb) => eb.fn.max('seq').as('max'))
        .where('run_id', '=', param('runId')),
      ['runId'],
    ),
    insertEvent: prepareCompiled(
      raw,
      db
        .insertInto('run_events')
        .values({
          run_id: param('runId'),
          seq: param('seq'),
          key: param('key'),
          type: param('type'),
          payload: param('payload'),
          at: param('at'),
        })
        // Only the dedupe key is ignored; a clash on seq would be a bug and aborts the commit.
        .onConflict((oc) => oc.columns(['run_id', 'key']).where('key', 'is not', null).doNothing()),
      ['runId', 'seq', 'key', 'type', 'payload', 'at'],
    ),
  };
}

class SqliteRunStore extends KyselyRunStore {
  readonly dialect = 'sqlite' as const;
  readonly #raw: DatabaseSync;
  readonly #stmts: CommitStatements;

  constructor(db: Kysely<StoreDatabase>, raw: DatabaseSync) {
    super(db);
    this.#raw = raw;
    this.#stmts = prepareCommitStatements(db, raw);
  }

  /**
   * The hot path, run synchronously on statements prepared at open: Kysely's async pipeline
   * costs more per statement than SQLite spends writing it. The next seq comes from an indexed
   * max() inside the write transaction, never from a memory cache, so another process writing
   * the same file cannot make it reuse or skip a number.
   */
  override async commit(batches: CommitBatch[]): Promise<RunEvent[]> {
    if (batches.length === 0) return [];
    const s = this.#stmts;
    const at = Date.now();
    const stored: RunEvent[] = [];
    s.begin.run();
    try {
      for (const { runId, journal, events } of batches) {
        for (const e of journal) {
          s.insertJournal.run(
            runId,
            e.stepId,
            e.kind,
            e.inputHash,
            e.status,
            encodeNullable(e.output),
            encodeNullable(e.error),
            at,
          );
        }
        if (events.length === 0) continue;
        let seq = ((s.maxSeq.get(runId)?.max as number | null | undefined) ?? 0) + 1;
        for (const event of events) {
          const { changes } = s.insertEvent.run(runId, seq, eventKey(event), event.type, JSON.stringify(event), at);
          // No change: the run already holds this key (a replay re-emitting a fact), skip it.
          if (changes === 0) continue;
          // A shallow copy: the caller's nested values are shared, as they were already serialized.
          stored.push({ ...event, runId, seq, at });
          seq++;
        }
      }
      s.commit.run();
    } catch (error) {
      // A failed statement leaves the transaction open (SQLite rolls back only that statement).
      if (this.#raw.isTransaction) s.rollback.run();
      throw error;
    }
    return stored;
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
