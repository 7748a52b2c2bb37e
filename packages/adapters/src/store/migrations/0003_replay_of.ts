/**
 * Lineage of replays: a run started from a checkpoint of another run records which run and
 * which checkpoint (`RunService.replay`); the source run lists its replays through the index.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const replayOf: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('runs').addColumn('replay_of_run_id', 'text').execute();
    await db.schema.alterTable('runs').addColumn('replay_of_checkpoint', 'text').execute();
    await db.schema.createIndex('runs_replay_of').on('runs').column('replay_of_run_id').execute();
  },
};
