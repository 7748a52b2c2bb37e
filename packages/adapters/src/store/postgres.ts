/**
 * The shared store: PostgreSQL through `pg` and Kysely's PostgresDialect, for several processes
 * or machines executing runs against one database. Here correctness under concurrency comes
 * first: commits from different processes for the same run serialize on the run's row.
 */
import { eventKey, type RunEvent } from '@weft/engine';
import { type Insertable, Kysely, PostgresDialect, type Transaction } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import pg from 'pg';
import { KyselyRunStore } from './kysely-store.ts';
import { migrateToLatest } from './migrations/index.ts';
import { journalKey, type RunLogTable, type StoreDatabase } from './schema.ts';
import type { CommitBatch, RunStore } from './types.ts';

const INT8_OID = 20;
/** Rows per multi-row INSERT, well under PG's 65535 bind parameters. */
const INSERT_CHUNK = 1_000;

function chunks<T>(rows: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

class PostgresRunStore extends KyselyRunStore {
  readonly dialect = 'postgres' as const;

  /**
   * One transaction, in five round trips whatever the number of runs and events: BEGIN,
   * 1. lock the rows of the runs that get events (sorted, so two commits touching the same runs
   *    cannot deadlock);
   * 2. read each run's max(seq) and which of the incoming keys it already holds;
   * 3. insert the new log rows (journal entries, then events) in one statement; COMMIT.
   * Steps 1 and 2 must be separate statements: under READ COMMITTED each statement reads from
   * a snapshot taken when it starts, and only one taken after the lock is granted sees the
   * events committed by whoever held the lock before.
   */
  override async commit(batches: CommitBatch[]): Promise<RunEvent[]> {
    if (batches.length === 0) return [];
    return this.db.transaction().execute(async (trx) => {
      const at = Date.now();
      const runIds = [...new Set(batches.filter((b) => b.events.length + b.journal.length > 0).map((b) => b.runId))];
      const keys = [
        ...new Set(
          batches
            .flatMap((b) => [...b.journal.map((e) => journalKey(e.stepId)), ...b.events.map(eventKey)])
            .filter((k) => k !== null),
        ),
      ];
      const next = new Map<string, number>();
      const held = new Set<string>();
      if (runIds.length > 0) {
        // FOR NO KEY UPDATE conflicts with itself and with UPDATEs, but not with the KEY SHARE
        // locks that foreign-key checks take, so other writers of journal/approvals don't wait.
        await trx
          .selectFrom('runs')
          .select('id')
          .where((eb) => eb('id', '=', eb.fn.any(eb.val(runIds))))
          .orderBy('id')
          .forNoKeyUpdate()
          .execute();
        // Per-run scalar subqueries, not GROUP BY: max(seq) of one run is a single descent of
        // the (run_id, seq) index, where a grouped max would read every event of the run.
        const state = await trx
          .selectFrom('runs')
          .select((eb) => [
            'id',
            eb
              .selectFrom('run_log')
              .select((sub) => sub.fn.max('seq').as('max'))
              .whereRef('run_log.run_id', '=', 'runs.id')
              .as('max'),
            jsonArrayFrom(
              eb
                .selectFrom('run_log')
                .select('key')
                .whereRef('run_log.run_id', '=', 'runs.id')
                .where((sub) => sub('key', '=', sub.fn.any(sub.val(keys)))),
            ).as('held'),
          ])
          .where((eb) => eb('id', '=', eb.fn.any(eb.val(runIds))))
          .execute();
        for (const row of state) {
          next.set(row.id, row.max ?? 0);
          for (const { key } of row.held) held.add(`${row.id}\u0000${key}`);
        }
      }

      const rows: Insertable<RunLogTable>[] = [];
      const stored: RunEvent[] = [];
      // Skips a key the run already holds, or one repeated within this same commit.
      const isNew = (runId: string, key: string | null) => {
        if (key === null) return true;
        const id = `${runId}\u0000${key}`;
        if (held.has(id)) return false;
        held.add(id);
        return true;
      };
      const nextSeq = (runId: string) => {
        const seq = (next.get(runId) ?? 0) + 1;
        next.set(runId, seq);
        return seq;
      };
      for (const { runId, journal, events } of batches) {
        for (const entry of journal) {
          const key = journalKey(entry.stepId);
          if (!isNew(runId, key)) continue;
          rows.push({
            run_id: runId,
            seq: nextSeq(runId),
            kind: 'journal',
            key,
            type: 'journal',
            payload: JSON.stringify(entry),
            at,
          });
        }
        for (const event of events) {
          const key = eventKey(event);
          if (!isNew(runId, key)) continue;
          const seq = nextSeq(runId);
          rows.push({ run_id: runId, seq, kind: 'event', key, type: event.type, payload: JSON.stringify(event), at });
          stored.push({ ...event, runId, seq, at });
        }
      }
      await insertRows(trx, rows);
      return stored;
    });
  }
}

/**
 * A plain INSERT: under the row locks nothing else can add these keys or seqs, so a conflict is
 * a bug and must abort the commit rather than be skipped.
 */
async function insertRows(trx: Transaction<StoreDatabase>, rows: Insertable<RunLogTable>[]): Promise<void> {
  for (const chunk of chunks(rows, INSERT_CHUNK)) await trx.insertInto('run_log').values(chunk).execute();
}

/** Opens and migrates a PostgreSQL store from a `postgres://` or `postgresql://` URL. */
export async function openPostgresStore(url: string): Promise<RunStore> {
  const pool = new pg.Pool({
    connectionString: url,
    // Timestamps are bigint (ms epoch); pg returns int8 as a string by default. Parse to
    // number for this pool only (not pg's global parsers): ms epochs are far below 2^53.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its connection (server restart) is emitted on the pool and would
  // crash the process unhandled; the pool already discards that client, and the next query
  // opens a new connection, so there is nothing else to do.
  pool.on('error', () => {});
  const db = new Kysely<StoreDatabase>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrateToLatest(db as unknown as Kysely<unknown>);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return new PostgresRunStore(db);
}
