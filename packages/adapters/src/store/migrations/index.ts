/**
 * The store's migrations: one ordered list for both dialects, run on every open. They are
 * provided in code (not read from a folder) so they work from any bundle or working directory.
 */
import type { Kysely } from 'kysely';
import { type Migration, Migrator } from 'kysely/migration';
import { initial } from './0001_initial.ts';
import { flows } from './0002_flows.ts';
import { replayOf } from './0003_replay_of.ts';
import { runSearch } from './0004_run_search.ts';
import { chats } from './0005_chats.ts';
import { handoff } from './0006_handoff.ts';
import { chatOwner } from './0007_chat_owner.ts';

/** Append only: a name, once released, keeps its meaning forever. */
export const migrations: Readonly<Record<string, Migration>> = {
  '0001_initial': initial,
  '0002_flows': flows,
  '0003_replay_of': replayOf,
  '0004_run_search': runSearch,
  '0005_chats': chats,
  '0006_handoff': handoff,
  '0007_chat_owner': chatOwner,
};

/**
 * Brings the schema up to date. The bookkeeping tables carry the store's own name so that
 * another part of the app may run its own Kysely migrations in the same database (Kysely fails
 * when the table lists executed migrations it was not given).
 */
export async function migrateToLatest(db: Kysely<unknown>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'run_store_migration',
    migrationLockTableName: 'run_store_migration_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? '(setup)';
    throw new Error(`run store migration ${failed} failed: ${String(error)}`, { cause: error });
  }
}
