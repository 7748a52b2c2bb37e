/**
 * The first schema. Written with Kysely's schema builder against `Kysely<unknown>` (a migration
 * must not depend on today's table types) and only with types both dialects understand: `text`,
 * `integer`, `bigint` (SQLite gives `bigint` INTEGER affinity; PG needs it for ms timestamps).
 */
import { type Kysely, SqliteAdapter } from 'kysely';
import type { Migration } from 'kysely/migration';

export const initial: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
    await db.schema
      .createTable('runs')
      .$call((b) =>
        sqlite
          ? // The rowid, declared: run_log positions are derived from it (see below), and VACUUM may
            // renumber an undeclared rowid. Same tree as an implicit rowid plus the unique index on
            // id. AUTOINCREMENT: a number is never given to a second run (a plain rowid reuses the
            // newest's after a delete), so a number cached with a run id names that run for good.
            b
              .addColumn('num', 'integer', (c) => c.primaryKey().autoIncrement())
              .addColumn('id', 'text', (c) => c.notNull().unique())
          : b.addColumn('id', 'text', (c) => c.primaryKey().notNull()),
      )
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
    // checkpointed results, in the order they were committed. Laid out per dialect.
    if (sqlite) {
      // A commit on SQLite costs roughly one WAL frame per page it dirties, and a statement costs
      // more than the row it writes; the floor is a single-row INSERT appended to a rowid table
      // (about one frame). So: ONE row per (run, commit) holding that commit's events and journal
      // entries as JSON arrays, in a rowid table whose INTEGER PRIMARY KEY (the rowid) is
      //   pos = runs.num × 2^24 + the first seq the row takes.
      // A run's rows are one contiguous rowid range in commit order, so reads are range scans with
      // no secondary index to dirty, and each row begins right after the previous one, so a
      // writer that missed another's row collides with it on the key (see sqlite.ts). Runs are
      // numbered in creation order, so the newest run appends at the right end of the tree, where
      // SQLite splits a full leaf cheaply (balance_quick) instead of rewriting siblings as it does
      // in a keyed (WITHOUT ROWID) tree. Dedupe keys are kept in memory (sqlite.ts), not indexed.
      // Limits: 2^24 seqs per run, 2^29 runs (pos < 2^53, a safe integer in JS).
      await db.schema
        .createTable('run_log')
        .addColumn('pos', 'integer', (c) => c.primaryKey())
        // For reading by hand and for the cascade; positions already say which run a row is of.
        // (No index: deleting a run should delete its pos range first, or the cascade scans.)
        .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
        // JSON arrays, null when the commit had none for the run: events as emitted, JournalEntries.
        .addColumn('events', 'text')
        .addColumn('journal', 'text')
        .addColumn('at', 'bigint', (c) => c.notNull())
        .execute();
    } else {
      // One row per event or journal entry, keyed (run_id, seq): the key serves every read (a
      // run's range) and the max(seq) lookup of every commit.
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
        .addPrimaryKeyConstraint('run_log_pk', ['run_id', 'seq'])
        .addForeignKeyConstraint('run_log_run_fk', ['run_id'], 'runs', ['id'], (fk) => fk.onDelete('cascade'))
        .execute();
      // Dedupes with a partial unique index: several processes may write one run.
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
