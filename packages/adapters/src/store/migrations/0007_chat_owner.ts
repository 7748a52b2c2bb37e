/**
 * Chats bound to the credential that created them: `owner` is `sha256:<hex>` of the bearer token
 * (never the token itself), or `anonymous` on a server that requires none. Rows from before this
 * migration have no owner (NULL); the API gives them to the server's primary credential the
 * first time it serves a chat request after the upgrade (until then there was one credential per
 * server, so that is who made them).
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const chatOwner: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('chats').addColumn('owner', 'text').execute();
    await db.schema.createIndex('chats_by_owner').on('chats').columns(['owner', 'flow_id', 'updated_at']).execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('chats_by_owner').ifExists().execute();
    await db.schema.alterTable('chats').dropColumn('owner').execute();
  },
};
