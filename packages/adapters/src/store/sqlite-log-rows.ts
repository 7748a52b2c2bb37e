/**
 * How a commit's events are laid out in SQLite's run log, and read back a page at a time.
 *
 * A commit is one row per run, unless its events come to more than ROW_BYTES of JSON: then it is
 * several rows, each holding consecutive events (positions run on), all written in the commit's
 * one transaction. Why: readers parse a whole row to reach any event in it, on the event loop
 * (node:sqlite is synchronous). A map whose 20 items finished together made one 3.6 MB row, and
 * reading a 1 MiB page of such a run parsed it again and again, holding the server for 150 ms.
 */
import type { RunEvent, RunEventInput } from '@weft/engine';

/** Above this much JSON, a commit's events are split over rows; one event larger than it goes alone. */
export const ROW_BYTES = 256 * 1024;

/** A row to append: where its events start in the commit's list, and their JSON text. */
export interface LogRow {
  offset: number;
  count: number;
  json: string;
}

/**
 * The commit's events as rows of at most about ROW_BYTES each (by JSON length). Serializes each
 * event once; one row's text is the same JSON array a single stringify would give.
 */
export function logRows(events: readonly RunEventInput[], rowBytes = ROW_BYTES): LogRow[] {
  if (events.length === 0) return [];
  const rows: LogRow[] = [];
  let parts: string[] = [];
  let offset = 0;
  let length = 0;
  for (let i = 0; i < events.length; i++) {
    const text = JSON.stringify(events[i]);
    if (parts.length > 0 && length + text.length > rowBytes) {
      rows.push({ offset, count: parts.length, json: `[${parts.join(',')}]` });
      parts = [];
      offset = i;
      length = 0;
    }
    parts.push(text);
    length += text.length + 1;
  }
  rows.push({ offset, count: parts.length, json: `[${parts.join(',')}]` });
  return rows;
}

/** A stored row as the events statement gives it. */
export interface StoredRow {
  first: number;
  events: string;
  at: number;
}

/** Rows parsed this large or more give the event loop a turn before the next one. */
const YIELD_AFTER_BYTES = 64 * 1024;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The rows a page of about `maxBytes` reaches, copied out of the statement (none stays open
 * across a turn of the event loop, where another read could reset it). The row holding `after`
 * may end there; only rows starting past it count towards the budget.
 */
export function rowsForPage(rows: Iterable<StoredRow>, after: number, maxBytes: number): StoredRow[] {
  const page: StoredRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    page.push(row);
    if (row.first <= after) continue;
    bytes += row.events.length;
    if (bytes >= maxBytes) break;
  }
  return page;
}

/**
 * The events of `rows` after seq `after`, at most `limit`, parsed one row at a time with a turn
 * of the event loop after each large one, so other requests are answered between rows.
 */
export async function eventsOfRows(
  runId: string,
  rows: readonly StoredRow[],
  after: number,
  limit: number,
): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for (const row of rows) {
    if (takeEvents(runId, row, after, limit, out)) return out;
    if (row.events.length >= YIELD_AFTER_BYTES) await turn();
  }
  return out;
}

/** As eventsOfRows, at once: rows are parsed as the statement yields them, up to `limit` events. */
export function eventsOfRowsNow(runId: string, rows: Iterable<StoredRow>, after: number, limit: number): RunEvent[] {
  const out: RunEvent[] = [];
  for (const row of rows) if (takeEvents(runId, row, after, limit, out)) return out;
  return out;
}

/** Adds the row's events after `after` to `out`; true once `out` holds `limit`. */
function takeEvents(runId: string, row: StoredRow, after: number, limit: number, out: RunEvent[]): boolean {
  const events = JSON.parse(row.events) as RunEventInput[];
  for (let i = 0; i < events.length; i++) {
    const seq = row.first + i;
    if (seq <= after) continue;
    out.push({ ...events[i]!, runId, seq, at: row.at });
    if (out.length >= limit) return true;
  }
  return false;
}
