/**
 * Chats: a conversation with a flow served as a chat backend (`POST /api/chat/<flowId>`). The
 * messages are the AI SDK's UI messages as JSON text; `active_run_id` is the run answering the
 * last user message, until its answer is settled into `messages`.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

export const chats: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('chats')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('flow_id', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('messages', 'text', (c) => c.notNull())
      .addColumn('active_run_id', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('chats_by_flow').on('chats').columns(['flow_id', 'updated_at']).execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('chats').ifExists().execute();
  },
};
