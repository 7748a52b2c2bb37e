/**
 * What the runs screen lists and searches without reading any run's events:
 *
 * - `runs.ended_at`: when the run reached a final status (duration = ended_at − created_at).
 *   Runs that ended before this migration get their `updated_at`, which for a final run is the
 *   time of its last change, i.e. its end.
 * - `runs.input_tokens` / `runs.output_tokens`: the run's model-turn tokens, added up as
 *   `step.completed` events with `usage` are committed. NULL for runs created before this
 *   migration (their turns were never counted, and a partial count would look like a total).
 * - `run_usage`: the same tokens per (model, why free), so the list can be priced at read time
 *   with the current price table and overrides (pricing.ts) without storing a price that goes
 *   stale. `turns` lets tiered prices be applied per average turn, not to the sum.
 * - Full-text search over each run's input, output and error message, done by the database:
 *   SQLite FTS5 in a contentless table keyed by `runs.num`, PostgreSQL a tsvector column with a
 *   GIN index. Both index the string and number values of the JSON (never its keys), split on
 *   anything that is not a letter or digit, case-folded, accents kept (PostgreSQL's `simple`
 *   configuration has no unaccent without an extension, so SQLite keeps them too: one behaviour).
 *   Both are kept up to date by triggers that fire only when input, output or error is written,
 *   so status changes and lease renewals never re-index a run.
 * - A partial index for the default list (root runs, newest first), and `runs_parent` made
 *   partial (`parent_run_id is not null`): it still serves every lookup of a run's children,
 *   and SQLite's planner no longer takes it for `parent_run_id is null` (95% of the table,
 *   then sorted) over the index that is already in list order.
 */
import { type Kysely, SqliteAdapter, sql } from 'kysely';
import type { Migration } from 'kysely/migration';

export const runSearch: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
    await db.schema.alterTable('runs').addColumn('ended_at', 'bigint').execute();
    await db.schema.alterTable('runs').addColumn('input_tokens', 'bigint').execute();
    await db.schema.alterTable('runs').addColumn('output_tokens', 'bigint').execute();
    await sql`update runs set ended_at = updated_at where status in ('completed', 'failed', 'cancelled')`.execute(db);

    await db.schema
      .createTable('run_usage')
      .addColumn('run_id', 'text', (c) => c.notNull())
      .addColumn('model', 'text', (c) => c.notNull())
      // '' (paid), 'mock', 'fixture' or 'reused': part of the key, so never null.
      .addColumn('free', 'text', (c) => c.notNull())
      .addColumn('turns', 'integer', (c) => c.notNull())
      .addColumn('input_tokens', 'bigint', (c) => c.notNull())
      .addColumn('output_tokens', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('run_usage_pk', ['run_id', 'model', 'free'])
      .addForeignKeyConstraint('run_usage_run_fk', ['run_id'], 'runs', ['id'], (fk) => fk.onDelete('cascade'))
      .execute();

    // The default list: root runs only, newest first, walked in index order with no sort.
    await db.schema.dropIndex('runs_parent').execute();
    await db.schema
      .createIndex('runs_parent')
      .on('runs')
      .column('parent_run_id')
      .where(sql.ref('parent_run_id'), 'is not', null)
      .execute();
    await db.schema
      .createIndex('runs_roots_created')
      .on('runs')
      .columns(['created_at', 'id'])
      .where(sql.ref('parent_run_id'), 'is', null)
      .execute();

    if (sqlite) await sqliteSearch(db);
    else await postgresSearch(db);
  },

  async down(db: Kysely<unknown>): Promise<void> {
    const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
    if (sqlite) {
      for (const trigger of ['runs_fts_insert', 'runs_fts_update', 'runs_fts_delete']) {
        await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
      }
      await sql`drop table if exists runs_fts`.execute(db);
    } else {
      await sql`drop trigger if exists runs_search on runs`.execute(db);
      await db.schema.dropIndex('runs_search').ifExists().execute();
      await db.schema.alterTable('runs').dropColumn('search').execute();
      await sql`drop function if exists weft_runs_search_trigger(), weft_run_search(text, text, text),
        weft_run_search_text(text, boolean)`.execute(db);
    }
    await db.schema.dropIndex('runs_roots_created').ifExists().execute();
    await db.schema.dropIndex('runs_parent').execute();
    await db.schema.createIndex('runs_parent').on('runs').column('parent_run_id').execute();
    await db.schema.dropTable('run_usage').ifExists().execute();
    for (const column of ['output_tokens', 'input_tokens', 'ended_at']) {
      await db.schema.alterTable('runs').dropColumn(column).execute();
    }
  },
};

async function sqliteSearch(db: Kysely<unknown>): Promise<void> {
  // Contentless: the text lives in `runs` already; contentless_delete lets triggers delete and
  // replace rows. prefix='2 3': prefix queries ("refun*") of short prefixes read a prefix index.
  await sql`create virtual table runs_fts using fts5(
    input, output, error,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0', prefix = '2 3'
  )`.execute(db);
  const values = (row: 'new' | 'runs') =>
    sql.raw(`${searchText(`${row}.input`)}, ${searchText(`${row}.output`)},
      case when json_valid(${row}.error) then json_extract(${row}.error, '$.message') end`);
  await sql`insert into runs_fts (rowid, input, output, error) select num, ${values('runs')} from runs`.execute(db);
  await sql`create trigger runs_fts_insert after insert on runs begin
    insert into runs_fts (rowid, input, output, error) values (new.num, ${values('new')});
  end`.execute(db);
  await sql`create trigger runs_fts_update after update of input, output, error on runs begin
    insert or replace into runs_fts (rowid, input, output, error) values (new.num, ${values('new')});
  end`.execute(db);
  await sql`create trigger runs_fts_delete after delete on runs begin
    delete from runs_fts where rowid = old.num;
  end`.execute(db);
}

/**
 * The string and number values of a JSON column, space-separated (json_tree: every leaf, keys
 * left out). JSON SQLite cannot walk (nested deeper than its limit) is indexed as it is, keys
 * and all, rather than failing the write of the run.
 */
function searchText(column: string): string {
  return `case when json_valid(${column}) then (select group_concat(value, ' ') from json_tree(${column})
    where type in ('text', 'integer', 'real')) else ${column} end`;
}

async function postgresSearch(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('runs').addColumn('search', sql`tsvector`).execute();
  // The same leaves as SQLite's json_tree, and the same word splitting: anything that is not a
  // letter or digit becomes a space first, so `simple` sees plain words ('order-42' is 'order'
  // and '42', as unicode61 splits it, not the signed number '-42').
  // JSON text that jsonb refuses (a \u0000 or a lone surrogate escape, both valid JSON) is
  // indexed as it is, keys and all, rather than failing the write of the run.
  await sql`create function weft_run_search_text(doc text, error boolean) returns text
    language plpgsql immutable as $$
    begin
      if doc is null then return ''; end if;
      if error then return coalesce(doc::jsonb ->> 'message', ''); end if;
      return coalesce((
        select string_agg(leaf #>> '{}', ' ')
        from jsonb_path_query(doc::jsonb, 'strict $.** ? (@.type() == "string" || @.type() == "number")') as leaf
      ), '');
    exception when others then
      return doc;
    end
  $$`.execute(db);
  await sql`create function weft_run_search(input text, output text, error text) returns tsvector
    language sql immutable as $$
    select to_tsvector('simple', regexp_replace(
      weft_run_search_text(input, false) || ' ' || weft_run_search_text(output, false) || ' ' ||
        weft_run_search_text(error, true),
      '[^[:alnum:]]+', ' ', 'g'))
  $$`.execute(db);
  await sql`create function weft_runs_search_trigger() returns trigger language plpgsql as $$
    begin
      new.search := weft_run_search(new.input, new.output, new.error);
      return new;
    end
  $$`.execute(db);
  await sql`update runs set search = weft_run_search(input, output, error)`.execute(db);
  await sql`create trigger runs_search before insert or update of input, output, error on runs
    for each row execute function weft_runs_search_trigger()`.execute(db);
  await sql`create index runs_search on runs using gin (search)`.execute(db);
}
