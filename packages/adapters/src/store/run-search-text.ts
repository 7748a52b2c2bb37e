/**
 * A page of runs matching a full-text search, newest first, from the database's own index
 * (SQLite FTS5 keyed by runs.num, PostgreSQL's tsvector; migrations/0004_run_search.ts).
 *
 * Why two steps: newest-first with a LIMIT can be answered either by walking the runs in
 * creation order and testing each against the text (cheap when the words are common: a page
 * fills after a few hundred rows; ruinous when they are rare: every run is read), or by taking
 * every match from the text index and sorting them (cheap when rare; ruinous when common:
 * 90,000 matches fetched and sorted for 50). Neither planner can tell which from its statistics
 * (prefix queries defeat PostgreSQL's estimates, and SQLite has none for FTS), and both picked
 * the ruinous plan in bench/debugger-store.ts. So: walk the newest WINDOW runs that pass the
 * other filters and test them against the index; if that fills the page, done (common words);
 * otherwise the words are rare among recent runs, and the rest of the page comes from the
 * index's matches older than the window, sorted (few, by that very fact). Either step reads at
 * most WINDOW rows or the matches; neither depends on a row estimate.
 */
import { type Expression, type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { SqliteStoreDatabase, StoreDatabase } from './schema.ts';

/** Recent runs tested against the text before the index's own matches are used instead. */
export const WINDOW = 2_000;

/** Applies the query's other filters and its cursor to a select from `runs`. */
export type Narrow = <O>(
  query: SelectQueryBuilder<StoreDatabase, 'runs', O>,
) => SelectQueryBuilder<StoreDatabase, 'runs', O>;

/** Every word as a prefix, all required. Terms are letters and digits only, so need no escaping beyond the quotes. */
function ftsQuery(terms: readonly string[]): string {
  return terms.map((term) => `"${term}"*`).join(' ');
}

function tsQuery(terms: readonly string[]): Expression<unknown> {
  return sql`to_tsquery('simple', ${terms.map((term) => `${term.toLowerCase()}:*`).join(' & ')})`;
}

/** The ids (newest first, at most `want`) of the runs that pass `narrow` and match `terms`. */
export async function matchingIds(
  db: Kysely<StoreDatabase>,
  dialect: 'sqlite' | 'postgres',
  narrow: Narrow,
  terms: readonly string[],
  want: number,
  window = WINDOW,
): Promise<string[]> {
  const recent = await recentHits(db, dialect, narrow, terms, window);
  const ids = recent.hits.slice(0, want);
  if (ids.length >= want || recent.boundary === null) return ids;
  return [...ids, ...(await olderMatches(db, dialect, narrow, terms, recent.boundary, want - ids.length))];
}

interface Recent {
  /** Matching ids among the window, newest first. */
  hits: string[];
  /** The oldest run of a full window (older ones were not looked at); null when the window held every candidate. */
  boundary: { createdAt: number; id: string } | null;
}

async function recentHits(
  db: Kysely<StoreDatabase>,
  dialect: 'sqlite' | 'postgres',
  narrow: Narrow,
  terms: readonly string[],
  size: number,
): Promise<Recent> {
  const newest = <O>(query: SelectQueryBuilder<StoreDatabase, 'runs', O>) =>
    narrow(query).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(size);
  let window: { id: string; created_at: number; hit: boolean }[];
  if (dialect === 'postgres') {
    // Tested row by row as the window is read (the tsvector is on the row).
    const rows = await newest(
      db.selectFrom('runs').select(['id', 'created_at', sql<boolean>`search @@ ${tsQuery(terms)}`.as('hit')]),
    ).execute();
    window = rows.map((row) => ({ ...row, hit: row.hit === true }));
  } else {
    // FTS5 answers a rowid range cheaply: the window's runs are the newest, so their numbers
    // are one narrow range (runs are numbered in creation order); other rows in it are dropped.
    const rows = await newest(
      db.withTables<Pick<SqliteStoreDatabase, 'runs'>>().selectFrom('runs').select(['id', 'created_at', 'num']),
    ).execute();
    const nums = rows.map((row) => row.num);
    const matched =
      nums.length === 0
        ? new Set<number>()
        : new Set(
            (
              await sql<{ rowid: number }>`select rowid from runs_fts where runs_fts match ${ftsQuery(terms)}
                and rowid >= ${Math.min(...nums)} and rowid <= ${Math.max(...nums)}`.execute(db)
            ).rows.map((row) => row.rowid),
          );
    window = rows.map((row) => ({ id: row.id, created_at: row.created_at, hit: matched.has(row.num) }));
  }
  const last = window.at(-1);
  return {
    hits: window.filter((row) => row.hit).map((row) => row.id),
    boundary: window.length < size || !last ? null : { createdAt: last.created_at, id: last.id },
  };
}

/** Matches older than `boundary`, newest first: every match from the index, then filtered and sorted. */
async function olderMatches(
  db: Kysely<StoreDatabase>,
  dialect: 'sqlite' | 'postgres',
  narrow: Narrow,
  terms: readonly string[],
  boundary: { createdAt: number; id: string },
  want: number,
): Promise<string[]> {
  const older = <O>(query: SelectQueryBuilder<StoreDatabase, 'runs', O>) =>
    narrow(query).where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(boundary.createdAt, boundary.id)));
  if (dialect === 'postgres') {
    // MATERIALIZED: the matches come from the GIN index (a bitmap scan), never from walking
    // the created_at index and testing each row, whatever the planner estimates.
    const rows = await db
      .with(
        (cte) => cte('matched').materialized(),
        (qb) =>
          older(qb.selectFrom('runs').select(['id', 'created_at'])).where(sql<SqlBool>`search @@ ${tsQuery(terms)}`),
      )
      .selectFrom('matched')
      .select('id')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(want)
      .execute();
    return rows.map((row) => row.id);
  }
  const rows = await older(db.selectFrom('runs').select('id'))
    .where(sql<SqlBool>`runs.num in (select rowid from runs_fts where runs_fts match ${ftsQuery(terms)})`)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(want)
    .execute();
  return rows.map((row) => row.id);
}
