/**
 * Hand-off: where a run started in-process continues on a durable engine (`{ to, at }` as JSON
 * text, null for a run without one). The row's `backend` names where it executes now; this
 * column keeps what was asked, so a start-up can finish a hand-off a crash interrupted.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const handoff: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('runs').addColumn('handoff', 'text').execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('runs').dropColumn('handoff').execute();
  },
};
