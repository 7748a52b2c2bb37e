/**
 * A run's events a page at a time, bounded by bytes as well as by count: `runs.get` folds its
 * state from the first page and `runs.eventsPage` hands on the rest, so neither answers with
 * every step's output of a large run at once (four `runs.get` of large runs came to 302 MB and
 * held the server for 12 s). The budget is WEFT_MAX_RUN_PAGE_BYTES (default 256 KiB) or less if
 * the caller asks; a page always holds at least one event, so a reader always moves on.
 */
import { jsonBytes, type SizeLimit, sizeLimit } from '@weft/adapters/store';
import type { RunEvent } from '@weft/engine';
import type { ApiServices } from './services.ts';

export const RUN_PAGE_LIMIT: SizeLimit = {
  what: 'run page',
  env: 'WEFT_MAX_RUN_PAGE_BYTES',
  // Not more: tRPC serializes a batch's answers in one JSON.stringify on the event loop, and a
  // batch of four 1 MiB pages held /health for 80 ms (bench/limits.ts).
  defaultBytes: 256 * 1024,
};

export interface EventPage {
  events: RunEvent[];
  /** The seq to ask for the next page after; null when the page reaches the run's last event. */
  nextAfter: number | null;
}

/** The page's byte budget: the caller's `maxBytes` within the server's limit. */
export function pageBudget(maxBytes: number | undefined): number {
  const limit = sizeLimit(RUN_PAGE_LIMIT);
  return maxBytes === undefined ? limit : Math.min(maxBytes, limit);
}

export async function readEventPage(
  store: ApiServices['store'],
  runId: string,
  after: number,
  maxEvents: number,
  maxBytes: number,
): Promise<EventPage> {
  const events: RunEvent[] = [];
  let bytes = 0;
  let cursor = after;
  for (;;) {
    // The store stops near the page's budget (SQLite: at the commit row that reaches it).
    const wanted = maxEvents - events.length + 1;
    const chunk = await store.readEvents(runId, cursor, wanted, Math.max(maxBytes - bytes, 1));
    for (const event of chunk) {
      if (events.length >= maxEvents) return { events, nextAfter: cursor };
      const size = jsonBytes(event, maxBytes - bytes);
      if (events.length > 0 && bytes + size > maxBytes) return { events, nextAfter: cursor };
      events.push(event);
      bytes += size;
      cursor = event.seq;
    }
    if (chunk.length === 0) return { events, nextAfter: null };
  }
}
