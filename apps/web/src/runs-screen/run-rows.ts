/**
 * The rows of the runs screen and how they change: pages appended as the user scrolls, the first
 * page read again when runs start and end (so new runs appear on top and finished ones show
 * their duration, tokens and cost), and status changes applied to rows further down at once.
 * Pure, so each case is a table test (run-rows.test.ts).
 */
import type { RunStatus } from '@weft/engine';
import { type RunFilters, resolveSince } from '../components/route.ts';

/** One run as `runs.search` lists it. */
export interface RunRow {
  id: string;
  flowId: string;
  flowVersion: number;
  status: RunStatus;
  backend: string;
  error: { message: string } | null;
  parentRunId: string | null;
  replayOf: { runId: string; checkpoint: string } | null;
  /** The hand-off the run was started with; `backend` is where it runs now. */
  handoff?: { to: string; at: string } | null;
  createdAt: number;
  updatedAt: number;
  /** Null while the run has not ended. */
  durationMs: number | null;
  tokens: { input: number; output: number } | null;
  /** Null when no turn could be priced; `unpricedModels` says which models had no price. */
  costUsd: number | null;
  unpricedModels: string[];
}

/** A status change as `runs.statusChanges` announces it. */
export interface StatusChange {
  runId: string;
  status: RunStatus;
  at: number;
}

/** What `runs.search` is asked, from the screen's filters (a relative `since` resolved against `now`). */
export interface SearchInput {
  flowId?: string;
  flowVersion?: number;
  status?: RunStatus[];
  backend?: string[];
  since?: number;
  until?: number;
  text?: string;
  rootOnly: boolean;
}

export function searchInput(filters: RunFilters, now: number): SearchInput {
  // Said either way: the API's default is its business, what this screen lists is ours.
  const input: SearchInput = { rootOnly: !filters.children };
  if (filters.flow) input.flowId = filters.flow;
  if (filters.flow && filters.version !== undefined) input.flowVersion = filters.version;
  if (filters.status?.length) input.status = filters.status;
  if (filters.backend?.length) input.backend = filters.backend;
  const since = resolveSince(filters.since, now);
  if (since !== undefined) input.since = since;
  if (filters.until !== undefined) input.until = filters.until;
  if (filters.q?.trim()) input.text = filters.q.trim();
  return input;
}

/** Newest first; runs created in the same millisecond by id, both descending (the server's order). */
export function newestFirst(a: RunRow, b: RunRow): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** The next page after the rows loaded so far; a run already listed (it moved up meanwhile) is kept once. */
export function appendPage(rows: readonly RunRow[], page: readonly RunRow[]): RunRow[] {
  const seen = new Set(rows.map((row) => row.id));
  return [...rows, ...page.filter((row) => !seen.has(row.id))];
}

/**
 * The first page, read again, merged into the rows loaded so far. Within the span the new first
 * page covers (down to its oldest run; everything, when it was the only page) it is the truth:
 * its rows replace the old ones and a listed run it no longer has stopped matching the filters.
 * Older rows are kept as they are.
 */
export function mergeHead(rows: readonly RunRow[], head: readonly RunRow[], headIsAll: boolean): RunRow[] {
  const oldest = head.at(-1);
  const ids = new Set(head.map((row) => row.id));
  const older = rows.filter((row) => {
    if (ids.has(row.id)) return false;
    if (headIsAll) return false;
    return oldest === undefined || newestFirst(oldest, row) < 0;
  });
  return [...head, ...older].sort(newestFirst);
}

/**
 * A status change applied to a listed run (rows the next head read does not reach stay right).
 * With a status filter, a run whose new status it excludes leaves the list. Unchanged rows: the
 * same array, so React renders nothing.
 */
export function applyStatus(rows: RunRow[], change: StatusChange, statuses?: readonly RunStatus[]): RunRow[] {
  const index = rows.findIndex((row) => row.id === change.runId);
  const row = rows[index];
  if (!row || row.status === change.status) return rows;
  if (statuses?.length && !statuses.includes(change.status)) return rows.filter((_, at) => at !== index);
  const next = rows.slice();
  next[index] = { ...row, status: change.status, updatedAt: Math.max(row.updatedAt, change.at) };
  return next;
}

export interface Totals {
  runs: number;
  input: number;
  output: number;
  /** Summed over the runs that have a price. */
  costUsd: number;
  /** Runs with tokens but no price, and the models that had none. */
  unpriced: number;
  unpricedModels: string[];
}

/** What the loaded rows used, for the screen's summary line. */
export function totalsOf(rows: readonly RunRow[]): Totals {
  const totals: Totals = { runs: rows.length, input: 0, output: 0, costUsd: 0, unpriced: 0, unpricedModels: [] };
  const models = new Set<string>();
  for (const row of rows) {
    if (row.tokens) {
      totals.input += row.tokens.input;
      totals.output += row.tokens.output;
    }
    if (row.costUsd !== null) totals.costUsd += row.costUsd;
    if (row.unpricedModels.length > 0) {
      totals.unpriced++;
      for (const model of row.unpricedModels) models.add(model);
    }
  }
  totals.unpricedModels = [...models].sort();
  return totals;
}
