/**
 * The flow table the API keeps. `flows` holds one row per flow id with its latest version number;
 * `flow_versions` the immutable documents. A deleted flow keeps its `flows` row (flagged, its
 * versions removed) so that a flow saved again under the same id continues the numbering: a run
 * pinned to "triage@3" never finds another document under that name.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const flows: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('flows')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('latest_version', 'integer', (c) => c.notNull())
      // 0 or 1 (both dialects read an integer the same way).
      .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('flow_versions')
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      // The IR document as JSON text, its `version` field set to this version.
      .addColumn('doc', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('flow_versions_pk', ['id', 'version'])
      .addForeignKeyConstraint('flow_versions_flow_fk', ['id'], 'flows', ['id'], (fk) => fk.onDelete('cascade'))
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    for (const table of ['flow_versions', 'flows']) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};
