/**
 * The runs screen's query, written once for both dialects: filters, full-text search by the
 * database's own index (SQLite FTS5, PostgreSQL tsvector; see migrations/0004_run_search.ts and
 * run-search-text.ts), newest first, keyset-paged on (created_at, id). A page never reads a
 * run's flow snapshot, fixtures or events, and only a preview of its input and output.
 */
import type { ErrorInfo, RunStatus } from '@weft/engine';
import { type Kysely, sql } from 'kysely';
import { matchingIds, type Narrow, WINDOW } from './run-search-text.ts';
import { type StoreDatabase, tokensOf } from './schema.ts';
import type { ModelUsage, RunHandoff, RunListItem, RunSearchPage, RunSearchQuery } from './types.ts';
import { freeOfColumn } from './usage.ts';

/** Characters of input and output JSON a list item carries. */
export const PREVIEW_CHARS = 160;
/** Words of a search used; the rest are ignored (each word is one more index lookup). */
const MAX_TERMS = 16;

/** A cursor this store did not give out (or from another query's order), named by its field. */
export class InvalidCursorError extends Error {
  readonly field = 'cursor';
  constructor(detail: string) {
    super(`cursor: ${detail}; pass the nextCursor of the previous page, or null for the first`);
    this.name = 'InvalidCursorError';
  }
}

/** The position after which the next page starts: the last run of a page, by the sort key. */
interface Position {
  createdAt: number;
  id: string;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

export function decodeCursor(cursor: string): Position {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError('not a cursor from a runs page');
  }
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    !Number.isSafeInteger(value[0]) ||
    typeof value[1] !== 'string' ||
    value[1] === ''
  ) {
    throw new InvalidCursorError('not a cursor from a runs page');
  }
  return { createdAt: value[0] as number, id: value[1] };
}

/**
 * The words of a search as both indexes split text: runs of letters, digits and combining
 * marks; everything else separates. Empty when there is nothing to search for.
 */
export function searchTerms(text: string): string[] {
  return text
    .split(/[^\p{L}\p{N}\p{M}]+/u)
    .filter((term) => term !== '')
    .slice(0, MAX_TERMS);
}

interface ListRow {
  id: string;
  flow_id: string;
  flow_version: number;
  status: RunStatus;
  backend: string;
  input_preview: string;
  output_preview: string | null;
  error: string | null;
  parent_run_id: string | null;
  parent_step_id: string | null;
  replay_of_run_id: string | null;
  replay_of_checkpoint: string | null;
  handoff: string | null;
  has_fixtures: number;
  created_at: number;
  updated_at: number;
  ended_at: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
}

export async function searchRuns(
  db: Kysely<StoreDatabase>,
  dialect: 'sqlite' | 'postgres',
  query: RunSearchQuery,
  /** Recent runs tested against a search before the index's matches are used (tests make it small). */
  window = WINDOW,
): Promise<RunSearchPage> {
  const { flowId, flowVersion, status, backend, since, until, text, rootOnly = true, cursor, limit } = query;
  // Empty lists match nothing (and `IN ()` is not valid SQL).
  if ((status !== undefined && status.length === 0) || (backend !== undefined && backend.length === 0)) {
    return { runs: [], nextCursor: null };
  }
  const after = cursor ? decodeCursor(cursor) : undefined;
  const terms = text === undefined ? [] : searchTerms(text);
  const narrow: Narrow = (select) => {
    let q = select;
    if (flowId !== undefined) q = q.where('flow_id', '=', flowId);
    if (flowVersion !== undefined) q = q.where('flow_version', '=', flowVersion);
    if (status !== undefined) q = q.where('status', 'in', status);
    if (backend !== undefined) q = q.where('backend', 'in', backend);
    if (since !== undefined) q = q.where('created_at', '>=', since);
    if (until !== undefined) q = q.where('created_at', '<', until);
    // Written as the partial index runs_roots_created says it, so both planners can use it.
    if (rootOnly) q = q.where('parent_run_id', 'is', null);
    if (after) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
    return q;
  };
  const columns = listColumns(db);
  // One more than a page: whether it comes back says whether there is a next page.
  let rows: ListRow[];
  if (terms.length === 0) {
    rows = (await narrow(columns)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute()) as ListRow[];
  } else {
    const ids = await matchingIds(db, dialect, narrow, terms, limit + 1, window);
    const byId = new Map(
      ids.length === 0
        ? []
        : ((await columns.where('id', 'in', ids).execute()) as ListRow[]).map((row) => [row.id, row] as const),
    );
    rows = ids.flatMap((id) => byId.get(id) ?? []);
  }
  const page = rows.slice(0, limit);
  const usage = await usageOf(
    db,
    page.filter((row) => row.input_tokens !== null).map((row) => row.id),
  );
  const last = page.at(-1);
  return {
    runs: page.map((row) => toListItem(row, usage.get(row.id) ?? [])),
    nextCursor: rows.length > limit && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
  };
}

/** What a list row reads: never the flow snapshot or fixtures, and input and output only as far as the preview. */
function listColumns(db: Kysely<StoreDatabase>) {
  const preview = (column: 'input' | 'output') => sql<string>`substr(${sql.ref(column)}, 1, ${PREVIEW_CHARS + 1})`;
  return db
    .selectFrom('runs')
    .select([
      'id',
      'flow_id',
      'flow_version',
      'status',
      'backend',
      preview('input').as('input_preview'),
      preview('output').as('output_preview'),
      'error',
      'parent_run_id',
      'parent_step_id',
      'replay_of_run_id',
      'replay_of_checkpoint',
      'handoff',
      sql<number>`case when fixtures is null then 0 else 1 end`.as('has_fixtures'),
      'created_at',
      'updated_at',
      'ended_at',
      'input_tokens',
      'output_tokens',
    ]);
}

/** The usage rows of some runs, per run (the page's runs: one indexed lookup). */
export async function usageOf(
  db: Kysely<StoreDatabase>,
  runIds: readonly string[],
): Promise<Map<string, ModelUsage[]>> {
  const byRun = new Map<string, ModelUsage[]>();
  if (runIds.length === 0) return byRun;
  const rows = await db
    .selectFrom('run_usage')
    .selectAll()
    .where('run_id', 'in', runIds)
    .orderBy('run_id')
    .orderBy('model')
    .orderBy('free')
    .execute();
  for (const row of rows) {
    const list = byRun.get(row.run_id) ?? [];
    byRun.set(row.run_id, list);
    list.push({
      model: row.model,
      free: freeOfColumn(row.free),
      turns: row.turns,
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
    });
  }
  return byRun;
}

function cut(text: string | null): string | null {
  return text === null || text.length <= PREVIEW_CHARS ? text : `${text.slice(0, PREVIEW_CHARS)}…`;
}

function toListItem(row: ListRow, usage: ModelUsage[]): RunListItem {
  return {
    id: row.id,
    flowId: row.flow_id,
    flowVersion: row.flow_version,
    status: row.status,
    backend: row.backend,
    inputPreview: cut(row.input_preview) ?? 'null',
    outputPreview: cut(row.output_preview),
    error: row.error === null ? null : (JSON.parse(row.error) as ErrorInfo),
    parentRunId: row.parent_run_id,
    parentStepId: row.parent_step_id,
    replayOf:
      row.replay_of_run_id === null
        ? null
        : { runId: row.replay_of_run_id, checkpoint: row.replay_of_checkpoint ?? '' },
    handoff: row.handoff === null ? null : (JSON.parse(row.handoff) as RunHandoff),
    hasFixtures: Number(row.has_fixtures) === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    endedAt: row.ended_at,
    tokens: tokensOf(row),
    usage,
  };
}
