/**
 * The shared store: PostgreSQL through `pg` and Kysely's PostgresDialect, for several processes
 * or machines executing runs against one database. Several processes may write one run's log
 * at once (an approval decided through another API instance); see `commit` for how seqs stay
 * unique.
 */

import { eventKey, type Json, type RunEvent, type RunEventInput } from '@weft/engine';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { KyselyChatStore } from './chat-store.ts';
import { KyselyFlowStore } from './flow-store.ts';
import { feedWarning, KyselyRunStore } from './kysely-store.ts';
import { migrateToLatest } from './migrations/index.ts';
import { PgCommitFeed } from './pg-feed.ts';
import { journalKey, type PostgresStoreDatabase, type StoreDatabase, toJournalEntry, toRunEvent } from './schema.ts';
import type { ChatStore, CommitBatch, FlowStore, JournalEntry, RunStore } from './types.ts';
import { completedTurns, hasTurnUsage, startedModel, usageOfTurns } from './usage.ts';

const INT8_OID = 20;
const UNIQUE_VIOLATION = '23505';
/** A commit racing another writer of the same run for the same seq numbers tries again. */
const MAX_ATTEMPTS = 20;
/** Events read at a time for a page bounded by bytes. */
const PAGE_EVENTS = 32;

interface LogItem {
  kind: 'event' | 'journal';
  key: string | null;
  type: string;
  payload: string;
}

class PostgresRunStore extends KyselyRunStore {
  readonly dialect = 'postgres' as const;
  readonly #pg: Kysely<PostgresStoreDatabase>;
  /** Kysely's pool, for the one statement worth preparing: a commit's INSERT (see insertLog). */
  readonly #pool: pg.Pool;
  readonly flows: FlowStore;
  readonly chats: ChatStore;

  constructor(db: Kysely<StoreDatabase>, pool: pg.Pool, url: string) {
    super(db);
    this.#pg = db.withTables<Pick<PostgresStoreDatabase, 'run_log'>>();
    this.#pool = pool;
    this.flows = new KyselyFlowStore(db);
    this.chats = new KyselyChatStore(db);
    this.feed = new PgCommitFeed(url, db as unknown as Kysely<unknown>, this.feedHost(feedWarning));
  }

  /** The run and its descendants (found level by level through runs_parent), with their logs and approvals. */
  override async deleteRun(id: string): Promise<boolean> {
    return this.#pg.transaction().execute(async (trx) => {
      const root = await trx.selectFrom('runs').select('id').where('id', '=', id).forUpdate().executeTakeFirst();
      if (root === undefined) return false;
      const ids = [id];
      for (let level = [id]; level.length > 0; ) {
        const children = await trx.selectFrom('runs').select('id').where('parent_run_id', 'in', level).execute();
        level = children.map((row) => row.id).filter((child) => !ids.includes(child));
        ids.push(...level);
      }
      await trx.deleteFrom('run_log').where('run_id', 'in', ids).execute();
      await trx.deleteFrom('approvals').where('run_id', 'in', ids).execute();
      await trx.deleteFrom('run_usage').where('run_id', 'in', ids).execute();
      await trx.deleteFrom('runs').where('id', 'in', ids).execute();
      return true;
    });
  }

  /** In commit order. */
  override async loadJournal(runId: string): Promise<JournalEntry[]> {
    const rows = await this.#pg
      .selectFrom('run_log')
      .select('payload')
      .where('run_id', '=', runId)
      .where('kind', '=', 'journal')
      .orderBy('seq')
      .execute();
    return rows.map(toJournalEntry);
  }

  override async readEvents(runId: string, afterSeq = 0, limit?: number, maxBytes?: number): Promise<RunEvent[]> {
    if (limit !== undefined && limit <= 0) return [];
    // A page by bytes: a row is an event here, so a few dozen at a time reach the budget soon
    // enough, and the caller reads on.
    if (maxBytes !== undefined) limit = Math.min(limit ?? PAGE_EVENTS, PAGE_EVENTS);
    const rows = await this.#pg
      .selectFrom('run_log')
      .select(['run_id', 'seq', 'payload', 'at'])
      .where('run_id', '=', runId)
      .where('seq', '>', afterSeq)
      .where('kind', '=', 'event')
      .orderBy('seq')
      .$if(limit !== undefined && Number.isFinite(limit), (query) => query.limit(limit!))
      .execute();
    return rows.map(toRunEvent);
  }

  /**
   * One INSERT per run, which numbers its rows itself (max(seq) + position) and skips keys the
   * run already holds (ON CONFLICT on the partial key index): a single-run commit is one
   * statement and one round trip, as cheap as the raw insert it is measured against. Several
   * runs go in one transaction. Two processes writing one run at once may pick the same seq:
   * the loser's INSERT fails on the primary key (it waits for the winner's commit first) and
   * the commit is tried again with fresh numbers, so seqs stay unique and increasing.
   */
  override async commit(batches: CommitBatch[]): Promise<RunEvent[]> {
    return this.announce(await this.#write(batches));
  }

  async #write(batches: CommitBatch[]): Promise<RunEvent[]> {
    const perRun = itemsByRun(batches);
    if (perRun.size === 0) return [];
    const at = Date.now();
    // A model turn's tokens are counted in the same transaction as its events.
    const counting = batches.some((batch) => hasTurnUsage(batch.events));
    for (let attempt = 1; ; attempt++) {
      try {
        if (perRun.size === 1 && attempt === 1 && !counting) {
          const [runId, items] = perRun.entries().next().value!;
          return await insertLogPrepared(this.#pool, runId, items, at);
        }
        return await this.db.transaction().execute(async (trx) => {
          // After a race, contenders take the runs' advisory locks (sorted: no deadlock) so they
          // queue instead of colliding again; the INSERT after the lock sees the winner's rows.
          if (attempt > 1) {
            for (const runId of [...perRun.keys()].sort()) {
              await sql`select pg_advisory_xact_lock(hashtextextended(${runId}, 0))`.execute(trx);
            }
          }
          const stored: RunEvent[] = [];
          for (const [runId, items] of perRun) {
            const events = await insertLog(trx, runId, items, at);
            if (counting) await countUsage(trx, runId, events, batches);
            stored.push(...events);
          }
          return stored;
        });
      } catch (error) {
        const racedOnSeq =
          (error as { code?: string }).code === UNIQUE_VIOLATION &&
          (error as { constraint?: string }).constraint === 'run_log_pk';
        if (!racedOnSeq || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }
}

/**
 * Adds the model turns among a run's newly stored events (re-emitted ones were not stored, so
 * nothing counts twice) to its tokens. An llm step's model comes from this commit's
 * `step.started` or else from the stored one, found by its dedupe key (indexed).
 */
async function countUsage(
  trx: Kysely<StoreDatabase>,
  runId: string,
  events: RunEvent[],
  batches: CommitBatch[],
): Promise<void> {
  const turns = completedTurns(events);
  if (turns.length === 0) return;
  const models = new Map<string, string>();
  for (const batch of batches) {
    if (batch.runId !== runId) continue;
    for (const event of batch.events) {
      const model = startedModel(event);
      if (model !== undefined) models.set((event as { stepId: string }).stepId, model);
    }
  }
  const missing = [...new Set(turns.map((turn) => turn.llmStepId))].filter((id) => !models.has(id));
  if (missing.length > 0) {
    const rows = await trx
      .withTables<Pick<PostgresStoreDatabase, 'run_log'>>()
      .selectFrom('run_log')
      .select('payload')
      .where('run_id', '=', runId)
      .where(
        'key',
        'in',
        missing.map((id) => eventKey({ type: 'step.started', stepId: id, stepType: 'llm' })!),
      )
      .execute();
    for (const row of rows) {
      const event = JSON.parse(row.payload) as RunEventInput;
      const model = startedModel(event);
      if (model !== undefined) models.set((event as { stepId: string }).stepId, model);
    }
  }
  const run = await trx.selectFrom('runs').select('fixtures').where('id', '=', runId).executeTakeFirst();
  const fixtures = typeof run?.fixtures === 'string' ? (JSON.parse(run.fixtures) as Json) : null;
  let input = 0;
  let output = 0;
  for (const row of usageOfTurns(turns, (id) => models.get(id), fixtures)) {
    await trx
      .insertInto('run_usage')
      .values({
        run_id: runId,
        model: row.model,
        free: row.free ?? '',
        turns: row.turns,
        input_tokens: row.inputTokens,
        output_tokens: row.outputTokens,
      })
      .onConflict((oc) =>
        oc.columns(['run_id', 'model', 'free']).doUpdateSet((eb) => ({
          turns: eb('run_usage.turns', '+', eb.ref('excluded.turns')),
          input_tokens: eb('run_usage.input_tokens', '+', eb.ref('excluded.input_tokens')),
          output_tokens: eb('run_usage.output_tokens', '+', eb.ref('excluded.output_tokens')),
        })),
      )
      .execute();
    input += row.inputTokens;
    output += row.outputTokens;
  }
  await trx
    .updateTable('runs')
    .set((eb) => ({
      input_tokens: eb('input_tokens', '+', input),
      output_tokens: eb('output_tokens', '+', output),
    }))
    .where('id', '=', runId)
    .execute();
}

/** Each run's new log rows in order (journal entries, then events, batch by batch); a key repeated within the commit is kept once. */
function itemsByRun(batches: CommitBatch[]): Map<string, LogItem[]> {
  const perRun = new Map<string, LogItem[]>();
  const seen = new Set<string>();
  const add = (runId: string, item: LogItem) => {
    if (item.key !== null) {
      const id = `${runId}\u0000${item.key}`;
      if (seen.has(id)) return;
      seen.add(id);
    }
    let items = perRun.get(runId);
    if (!items) {
      items = [];
      perRun.set(runId, items);
    }
    items.push(item);
  };
  for (const { runId, journal, events } of batches) {
    for (const entry of journal) {
      add(runId, { kind: 'journal', key: journalKey(entry.stepId), type: 'journal', payload: JSON.stringify(entry) });
    }
    for (const event of events) {
      add(runId, { kind: 'event', key: eventKey(event), type: event.type, payload: JSON.stringify(event) });
    }
  }
  return perRun;
}

/**
 * The statement of a commit, per run: it numbers the rows itself (max(seq) + position) and skips
 * keys the run already holds. Kysely has no builder for a set-returning function with
 * ordinality, so it is written out; every value is a bound parameter.
 */
const INSERT_LOG = {
  // Prepared once per connection under this name: planning the statement afresh cost about as
  // much as the round trip (a step's commit went from ~620 to ~360 µs here).
  name: 'weft_insert_log',
  text: `insert into run_log (run_id, seq, kind, key, type, payload, at)
    select $1, base.m + item.ord, item.kind, item.key, item.type, item.payload, $2
    from (select coalesce(max(seq), 0) as m from run_log where run_id = $1) as base,
      unnest($3::text[], $4::text[], $5::text[], $6::text[]) with ordinality as item(kind, key, type, payload, ord)
    on conflict (run_id, key) where key is not null do nothing
    returning seq, kind, payload`,
};

interface InsertedRow {
  seq: number;
  kind: string;
  payload: string;
}

function insertLogValues(runId: string, items: LogItem[], at: number): unknown[] {
  return [
    runId,
    at,
    items.map((item) => item.kind),
    items.map((item) => item.key),
    items.map((item) => item.type),
    items.map((item) => item.payload),
  ];
}

function storedEvents(rows: InsertedRow[], runId: string, at: number): RunEvent[] {
  return rows
    .filter((row) => row.kind === 'event')
    .sort((a, b) => a.seq - b.seq)
    .map((row) => ({ ...(JSON.parse(row.payload) as RunEventInput), runId, seq: row.seq, at }));
}

/** insertLog inside a transaction (several runs, or tokens counted with the events). */
async function insertLog(db: Kysely<StoreDatabase>, runId: string, items: LogItem[], at: number): Promise<RunEvent[]> {
  const { rows } = await db.executeQuery<InsertedRow>(
    CompiledQuery.raw(INSERT_LOG.text, insertLogValues(runId, items, at)),
  );
  return storedEvents(rows, runId, at);
}

/** A single-run commit: one autocommit statement, prepared on the connection that runs it. */
async function insertLogPrepared(pool: pg.Pool, runId: string, items: LogItem[], at: number): Promise<RunEvent[]> {
  const { rows } = await pool.query<InsertedRow>({ ...INSERT_LOG, values: insertLogValues(runId, items, at) });
  return storedEvents(rows, runId, at);
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
  return new PostgresRunStore(db, pool, url);
}
