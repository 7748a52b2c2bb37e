/**
 * The first schema. Written with Kysely's schema builder against `Kysely<unknown>` (a migration
 * must not depend on today's table types) and only with types both dialects understand: `text`,
 * `integer`, `bigint` (SQLite gives `bigint` INTEGER affinity; PG needs it for ms timestamps).
 */
import { type Kysely, SqliteAdapter, sql } from 'kysely';
import type { Migration } from 'kysely/migration';

export const initial: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
    await db.schema
      .createTable('runs')
      // SQLite lets a non-INTEGER primary key hold NULL unless told otherwise.
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('flow_id', 'text', (c) => c.notNull())
      .addColumn('flow_version', 'integer', (c) => c.notNull())
      .addColumn('flow', 'text', (c) => c.notNull())
      .addColumn('input', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('output', 'text')
      .addColumn('error', 'text')
      .addColumn('backend', 'text', (c) => c.notNull())
      .addColumn('parent_run_id', 'text')
      .addColumn('parent_step_id', 'text')
      .addColumn('fixtures', 'text')
      .addColumn('owner', 'text')
      .addColumn('lease_until', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    // listRuns: newest first, optionally per flow; status for "what is still running"; children of a run.
    await db.schema.createIndex('runs_created').on('runs').columns(['created_at', 'id']).execute();
    await db.schema.createIndex('runs_flow_created').on('runs').columns(['flow_id', 'created_at']).execute();
    await db.schema.createIndex('runs_status').on('runs').column('status').execute();
    await db.schema.createIndex('runs_parent').on('runs').column('parent_run_id').execute();

    // One append-only log per run: the events that stream to the browser and the journal of
    // checkpointed results, in the order they were committed. One tree instead of two tables
    // and their indexes: a SQLite commit costs roughly one WAL frame per page it dirties, and a
    // step's journal entry and its events then land on the same (last) page of the run.
    await db.schema
      .createTable('run_log')
      .addColumn('run_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      // 'event' or 'journal'.
      .addColumn('kind', 'text', (c) => c.notNull())
      // Events: eventKey(event) (null for deltas); journal: 'journal:<stepId>'. First write wins.
      .addColumn('key', 'text')
      .addColumn('type', 'text', (c) => c.notNull())
      // An event as emitted, or a JournalEntry, as JSON text so it reads back field for field.
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      // (run_id, seq) serves every read (a run's range) and the max(seq) lookup of every commit.
      .addPrimaryKeyConstraint('run_log_pk', ['run_id', 'seq'])
      .addForeignKeyConstraint('run_log_run_fk', ['run_id'], 'runs', ['id'], (fk) => fk.onDelete('cascade'))
      // On SQLite, store the rows in the primary-key tree itself (no separate rowid table).
      .$call((b) => (sqlite ? b.modifyEnd(sql`without rowid`) : b))
      .execute();
    if (!sqlite) {
      // PostgreSQL dedupes with a partial unique index (several processes may write one run).
      // SQLite dedupes against keys it keeps in memory, checked against max(seq) inside the write
      // transaction (see sqlite.ts): an index would dirty two more pages per commit, scattered by key.
      await db.schema
        .createIndex('run_log_key')
        .on('run_log')
        .columns(['run_id', 'key'])
        .unique()
        .where('key', 'is not', null)
        .execute();
    }

    await db.schema
      .createTable('approvals')
      .addColumn('run_id', 'text', (c) => c.notNull())
      .addColumn('step_id', 'text', (c) => c.notNull())
      .addColumn('prompt', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('requested_at', 'bigint', (c) => c.notNull())
      .addColumn('deadline', 'bigint')
      .addColumn('decided_by', 'text')
      .addColumn('comment', 'text')
      .addColumn('decided_at', 'bigint')
      .addPrimaryKeyConstraint('approvals_pk', ['run_id', 'step_id'])
      .addForeignKeyConstraint('approvals_run_fk', ['run_id'], 'runs', ['id'], (fk) => fk.onDelete('cascade'))
      .execute();
    // The approvals inbox and the timeout sweep both ask for pending ones by deadline.
    await db.schema.createIndex('approvals_status_deadline').on('approvals').columns(['status', 'deadline']).execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    for (const table of ['approvals', 'run_log', 'runs']) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};
