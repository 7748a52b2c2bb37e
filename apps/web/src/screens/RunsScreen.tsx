/**
 * Every run of every flow, newest first (`#/runs`): filters kept in the address, the search done
 * by the database, pages loaded as the list scrolls, rows rendered only where they show, and runs
 * appearing and changing live as they start and end. A row opens the run view.
 */
import { useCallback } from 'react';
import { queryOfFilters, type RunFilters, replaceRoute } from '../components/route.ts';
import { FilterBar } from '../runs-screen/FilterBar.tsx';
import { formatCount, formatUsd } from '../runs-screen/format.ts';
import { RunsTable } from '../runs-screen/RunsTable.tsx';
import { totalsOf } from '../runs-screen/run-rows.ts';
import { useRunSearch } from '../runs-screen/use-run-search.ts';
import '../runs-screen/runs-screen.css';

function Summary({ rows, hasMore }: { rows: Parameters<typeof totalsOf>[0]; hasMore: boolean }) {
  const totals = totalsOf(rows);
  // Totals of what is loaded, said as such: with more pages on the server they are not the whole.
  const scope = hasMore ? `first ${formatCount(totals.runs)} runs` : `${formatCount(totals.runs)} runs`;
  return (
    <p className="runs-summary muted small" data-testid="runs-summary">
      <span>{scope}</span>
      {totals.input + totals.output > 0 ? (
        <span>
          {' · '}
          {formatCount(totals.input)} → {formatCount(totals.output)} tokens
        </span>
      ) : null}
      <span>
        {' · '}
        {formatUsd(totals.costUsd)}
        {totals.unpriced > 0 ? (
          <span title={`no price for ${totals.unpricedModels.join(', ')}`}>
            {' '}
            (+ {totals.unpriced} unpriced run{totals.unpriced === 1 ? '' : 's'})
          </span>
        ) : null}
      </span>
    </p>
  );
}

export function RunsScreen({ filters }: { filters: RunFilters }) {
  const search = useRunSearch(filters);
  const key = queryOfFilters(filters);
  const setFilters = useCallback((next: RunFilters) => replaceRoute({ screen: 'runs', filters: next }), []);
  const filtered = key !== '';

  return (
    <main className="runs-screen" aria-busy={search.phase === 'loading'}>
      <div className="runs-screen-head">
        <h1>Runs</h1>
        {search.phase === 'ready' ? <Summary rows={search.rows} hasMore={search.hasMore} /> : null}
        {search.phase === 'loading' ? <span className="muted small">Loading…</span> : null}
      </div>
      <FilterBar filters={filters} onChange={setFilters} />
      {search.error ? (
        <p className="field-error runs-alert" role="alert">
          Could not list runs: {search.error}
        </p>
      ) : null}
      {search.phase === 'ready' && search.rows.length === 0 ? (
        <div className="empty-state">
          <h2>{filtered ? 'No runs match' : 'No runs yet'}</h2>
          <p>
            {filtered
              ? 'Nothing matches these filters. Clear some, or search for other words.'
              : 'Open a flow and press Run, or start one with `weft run`. Runs appear here as they start.'}
          </p>
        </div>
      ) : (
        <RunsTable
          rows={search.rows}
          hasMore={search.hasMore}
          loadingMore={search.loadingMore}
          onMore={search.loadMore}
          resetKey={key}
        />
      )}
    </main>
  );
}
