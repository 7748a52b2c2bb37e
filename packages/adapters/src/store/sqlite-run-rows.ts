/**
 * The run-row operations every execution makes — create the run, read it, claim it, renew and
 * release its lease, record its end — as statements prepared once on the raw connection.
 * Through Kysely's async pipeline each cost about 100 µs, more than SQLite spends on it, and a
 * run makes seven of them whatever its length (a 20-turn agent run paid more for them than for
 * its 40 commits). Same SQL meaning as KyselyRunStore's, which PostgreSQL keeps using.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { isFinalStatus, type RunStatus } from '@weft/engine';
import type { Kysely } from 'kysely';
import type { SyncWriter } from './flow-store.ts';
import {
  encodeNullable,
  newRunRow,
  RUN_COLUMNS,
  type RunsTable,
  type SqliteStoreDatabase,
  type StoreDatabase,
  toRunRecord,
} from './schema.ts';
import { SEQ_SPAN } from './sqlite-statements.ts';
import type { NewRun, RunRecord, RunStore } from './types.ts';

type Patch = Parameters<RunStore['updateRun']>[1];
type Claim = Parameters<RunStore['claimRun']>[1];

const SAMPLE_RUN: NewRun = { id: '', flowId: '', flowVersion: 0, flow: null, input: null, backend: '' };

export class SqliteRunRows {
  readonly #create: StatementSync;
  readonly #get: StatementSync;
  readonly #claim: StatementSync;
  readonly #renew: StatementSync;
  readonly #release: StatementSync;
  readonly #setStatus: StatementSync;
  readonly #update: StatementSync;

  constructor(raw: DatabaseSync) {
    // Bound by column name from newRunRow, the one mapping of a new run to its row.
    const columns = Object.keys(newRunRow(SAMPLE_RUN, 0));
    this.#create = raw.prepare(
      `INSERT INTO runs (${columns.join(', ')}) VALUES (${columns.map((column) => `:${column}`).join(', ')})`,
    );
    this.#get = raw.prepare(`SELECT ${RUN_COLUMNS.join(', ')} FROM runs WHERE id = :id`);
    // Free, ours already, its lease ran out, or its owner is dead on this machine.
    this.#claim = raw.prepare(
      `UPDATE runs SET owner = :owner, lease_until = :leaseUntil WHERE id = :id
         AND (owner IS NULL OR owner = :owner OR lease_until < :now OR owner = :takeOverFrom)`,
    );
    this.#renew = raw.prepare('UPDATE runs SET lease_until = :leaseUntil WHERE id = :id AND owner = :owner');
    this.#release = raw.prepare('UPDATE runs SET owner = NULL, lease_until = NULL WHERE id = :id AND owner = :owner');
    // Input, output and error are re-indexed for search when written (0004_run_search's trigger):
    // a change of status alone must not write them.
    this.#setStatus = raw.prepare(
      `UPDATE runs SET updated_at = :now, status = coalesce(:status, status), backend = coalesce(:backend, backend),
         ended_at = CASE WHEN :final THEN coalesce(ended_at, :now) ELSE ended_at END
       WHERE id = :id`,
    );
    // A field the patch leaves out keeps its value; the first final status is when the run ended.
    this.#update = raw.prepare(
      `UPDATE runs SET updated_at = :now,
         status = coalesce(:status, status),
         backend = coalesce(:backend, backend),
         output = CASE WHEN :setOutput THEN :output ELSE output END,
         error = CASE WHEN :setError THEN :error ELSE error END,
         ended_at = CASE WHEN :final THEN coalesce(ended_at, :now) ELSE ended_at END
       WHERE id = :id`,
    );
  }

  create(run: NewRun): void {
    this.#create.run({ ...newRunRow(run, Date.now()) });
  }

  get(id: string): RunRecord | undefined {
    const row = this.#get.get({ id }) as RunsTable | undefined;
    return row === undefined ? undefined : toRunRecord(row);
  }

  claim(id: string, claim: Claim): boolean {
    const { owner, leaseUntil, now, takeOverFrom } = claim;
    return this.#claim.run({ id, owner, leaseUntil, now, takeOverFrom: takeOverFrom ?? null }).changes > 0;
  }

  renew(id: string, owner: string, leaseUntil: number): boolean {
    return this.#renew.run({ id, owner, leaseUntil }).changes > 0;
  }

  release(id: string, owner: string): void {
    this.#release.run({ id, owner });
  }

  update(id: string, patch: Patch): void {
    const row = {
      id,
      now: Date.now(),
      status: patch.status ?? null,
      backend: patch.backend ?? null,
      final: patch.status !== undefined && isFinalStatus(patch.status as RunStatus) ? 1 : 0,
    };
    if (patch.output === undefined && patch.error === undefined) {
      this.#setStatus.run(row);
      return;
    }
    this.#update.run({
      ...row,
      setOutput: patch.output === undefined ? 0 : 1,
      output: encodeNullable(patch.output),
      setError: patch.error === undefined ? 0 : 1,
      error: encodeNullable(patch.error),
    });
  }
}

/**
 * Deletes the run and its descendants with their logs and approvals, synchronously in one write
 * transaction (like commit, so neither can interleave with the other); returns their ids (none:
 * no such run). Each run's log is deleted as its position range first; foreign keys are off
 * meanwhile, because deleting a runs row would otherwise scan all of run_log (run_log.run_id has
 * no index) for the cascade. (That pragma cannot change inside a transaction, so it is set around it.)
 */
export function deleteRunTree(
  db: Kysely<StoreDatabase & Pick<SqliteStoreDatabase, 'runs' | 'run_log'>>,
  raw: DatabaseSync,
  sync: SyncWriter,
  id: string,
): string[] {
  raw.exec('PRAGMA foreign_keys = OFF');
  try {
    return sync.transaction(() => {
      const runs = new Map<string, number>();
      let level = sync.all(db.selectFrom('runs').select(['id', 'num']).where('id', '=', id));
      while (level.length > 0) {
        for (const row of level) runs.set(row.id as string, Number(row.num));
        const parents = level.map((row) => row.id as string);
        level = sync
          .all(db.selectFrom('runs').select(['id', 'num']).where('parent_run_id', 'in', parents))
          .filter((row) => !runs.has(row.id as string));
      }
      for (const [runId, num] of runs) {
        sync.run(
          db
            .deleteFrom('run_log')
            .where('pos', '>=', num * SEQ_SPAN)
            .where('pos', '<', (num + 1) * SEQ_SPAN),
        );
        sync.run(db.deleteFrom('approvals').where('run_id', '=', runId));
        sync.run(db.deleteFrom('run_usage').where('run_id', '=', runId));
        sync.run(db.deleteFrom('runs').where('id', '=', runId));
      }
      return [...runs.keys()];
    });
  } finally {
    raw.exec('PRAGMA foreign_keys = ON');
  }
}
