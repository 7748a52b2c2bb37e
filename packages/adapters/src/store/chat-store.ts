/**
 * The chat table (ChatStore), written once with Kysely for both dialects. Every method is one
 * statement, so none needs a transaction; `settle` is a conditional UPDATE, atomic on its own.
 */
import type { Json } from '@weft/engine';
import type { Kysely, Selectable } from 'kysely';
import type { ChatsTable, StoreDatabase } from './schema.ts';
import type { ChatRecord, ChatStore, ChatSummary } from './types.ts';

const SUMMARY_COLUMNS = ['id', 'flow_id', 'title', 'active_run_id', 'created_at', 'updated_at'] as const;

export class KyselyChatStore implements ChatStore {
  readonly #db: Kysely<StoreDatabase>;

  constructor(db: Kysely<StoreDatabase>) {
    this.#db = db;
  }

  async get(id: string): Promise<ChatRecord | undefined> {
    const row = await this.#db.selectFrom('chats').selectAll().where('id', '=', id).executeTakeFirst();
    return row
      ? { ...toSummary(row), messages: JSON.parse(row.messages) as Json[], owner: row.owner ?? null }
      : undefined;
  }

  async list(filter: { flowId?: string; owner?: string; limit?: number } = {}): Promise<ChatSummary[]> {
    let query = this.#db.selectFrom('chats').select(SUMMARY_COLUMNS);
    if (filter.flowId !== undefined) query = query.where('flow_id', '=', filter.flowId);
    if (filter.owner !== undefined) query = query.where('owner', '=', filter.owner);
    const rows = await query
      .orderBy('updated_at', 'desc')
      .orderBy('id')
      .limit(filter.limit ?? 100)
      .execute();
    return rows.map(toSummary);
  }

  async put(
    chat: Omit<ChatRecord, 'createdAt' | 'updatedAt' | 'owner'> & { owner: string },
    now: number,
  ): Promise<boolean> {
    const values = {
      id: chat.id,
      flow_id: chat.flowId,
      title: chat.title,
      messages: JSON.stringify(chat.messages),
      active_run_id: chat.activeRunId,
      created_at: now,
      updated_at: now,
      owner: chat.owner,
    };
    // One statement: of two credentials racing to the same new id, the second's update finds
    // the first's owner and writes nothing (so neither can replace the other's conversation).
    const result = await this.#db
      .insertInto('chats')
      .values(values)
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet({
            flow_id: values.flow_id,
            title: values.title,
            messages: values.messages,
            active_run_id: values.active_run_id,
            updated_at: now,
          })
          .where('chats.owner', '=', chat.owner),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async adoptUnowned(owner: string): Promise<number> {
    const result = await this.#db.updateTable('chats').set({ owner }).where('owner', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async settle(id: string, runId: string, messages: Json[], now: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('chats')
      .set({ messages: JSON.stringify(messages), active_run_id: null, updated_at: now })
      .where('id', '=', id)
      .where('active_run_id', '=', runId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom('chats').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

function toSummary(row: Pick<Selectable<ChatsTable>, (typeof SUMMARY_COLUMNS)[number]>): ChatSummary {
  return {
    id: row.id,
    flowId: row.flow_id,
    title: row.title,
    activeRunId: row.active_run_id,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
