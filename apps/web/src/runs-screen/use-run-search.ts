/**
 * The runs screen's data: `runs.search` a page at a time (the database filters, searches and
 * orders; the cursor pages), more pages as the user scrolls, and live changes from
 * `runs.statusChanges` — a listed run's new status at once, and the first page read again once
 * per burst of changes, which brings new runs to the top and the durations, tokens and costs of
 * runs that just ended.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { queryOfFilters, type RunFilters } from '../components/route.ts';
import { messageOf, trpc } from '../trpc.ts';
import {
  appendPage,
  applyStatus,
  mergeHead,
  type RunRow,
  type SearchInput,
  type StatusChange,
  searchInput,
} from './run-rows.ts';

/** Rows per request: a few screenfuls, small enough to answer in milliseconds. */
export const PAGE_SIZE = 100;
/** Changes come in bursts (a run starts, its children start, they end): one head read per burst. */
const HEAD_REFRESH_MS = 250;

export interface RunSearch {
  rows: RunRow[];
  /** `loading`: the first page of these filters is on its way (the rows shown are the previous ones). */
  phase: 'loading' | 'ready' | 'error';
  error: string | null;
  /** More rows on the server. */
  hasMore: boolean;
  loadingMore: boolean;
  loadMore(): void;
}

interface State {
  key: string;
  rows: RunRow[];
  nextCursor: string | null;
  phase: RunSearch['phase'];
  error: string | null;
  loadingMore: boolean;
}

async function searchPage(
  input: SearchInput,
  cursor: string | null,
): Promise<{ runs: RunRow[]; nextCursor: string | null }> {
  const page = await trpc.runs.search.query({ ...input, cursor, limit: PAGE_SIZE });
  return { runs: page.runs as RunRow[], nextCursor: page.nextCursor };
}

export function useRunSearch(filters: RunFilters): RunSearch {
  const key = queryOfFilters(filters);
  const [state, setState] = useState<State>({
    key,
    rows: [],
    nextCursor: null,
    phase: 'loading',
    error: null,
    loadingMore: false,
  });
  // What the effects below read without re-subscribing: the current query and its paging.
  const current = useRef({ key, input: searchInput(filters, Date.now()), cursor: null as string | null, busy: false });

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is the filters, written out
  useEffect(() => {
    let live = true;
    const input = searchInput(filters, Date.now());
    current.current = { key, input, cursor: null, busy: true };
    setState((previous) => ({ ...previous, key, phase: 'loading', error: null }));
    searchPage(input, null)
      .then((page) => {
        if (!live) return;
        current.current.cursor = page.nextCursor;
        current.current.busy = false;
        setState({
          key,
          rows: page.runs,
          nextCursor: page.nextCursor,
          phase: 'ready',
          error: null,
          loadingMore: false,
        });
      })
      .catch((error: unknown) => {
        if (!live) return;
        current.current.busy = false;
        setState((previous) => ({ ...previous, phase: 'error', error: messageOf(error), loadingMore: false }));
      });

    let timer: ReturnType<typeof setTimeout> | undefined;
    const refreshHead = () => {
      timer = undefined;
      searchPage(input, null)
        .then((page) => {
          if (!live) return;
          setState((previous) =>
            previous.key === key
              ? { ...previous, rows: mergeHead(previous.rows, page.runs, page.nextCursor === null) }
              : previous,
          );
        })
        // A failed refresh leaves the list as it was; the next change tries again.
        .catch(() => undefined);
    };
    const subscription = trpc.runs.statusChanges.subscribe(filters.flow ? { flowId: filters.flow } : undefined, {
      onData: (change: StatusChange) => {
        if (!live) return;
        setState((previous) => {
          const rows = applyStatus(previous.rows, change, filters.status);
          return rows === previous.rows ? previous : { ...previous, rows };
        });
        timer ??= setTimeout(refreshHead, HEAD_REFRESH_MS);
      },
    });
    return () => {
      live = false;
      clearTimeout(timer);
      subscription.unsubscribe();
    };
  }, [key]);

  const loadMore = useCallback(() => {
    const query = current.current;
    if (query.busy || query.cursor === null) return;
    query.busy = true;
    setState((previous) => ({ ...previous, loadingMore: true }));
    searchPage(query.input, query.cursor)
      .then((page) => {
        if (current.current !== query) return;
        query.cursor = page.nextCursor;
        query.busy = false;
        setState((previous) => ({
          ...previous,
          rows: appendPage(previous.rows, page.runs),
          nextCursor: page.nextCursor,
          loadingMore: false,
        }));
      })
      .catch((error: unknown) => {
        if (current.current !== query) return;
        query.busy = false;
        setState((previous) => ({ ...previous, loadingMore: false, error: messageOf(error) }));
      });
  }, []);

  return {
    rows: state.rows,
    phase: state.key === key ? state.phase : 'loading',
    error: state.error,
    hasMore: state.nextCursor !== null,
    loadingMore: state.loadingMore,
    loadMore,
  };
}
