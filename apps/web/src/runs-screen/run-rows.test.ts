import { describe, expect, it } from 'vitest';
import { appendPage, applyStatus, mergeHead, newestFirst, type RunRow, searchInput, totalsOf } from './run-rows.ts';

function row(id: string, createdAt: number, patch: Partial<RunRow> = {}): RunRow {
  return {
    id,
    flowId: 'f',
    flowVersion: 1,
    status: 'completed',
    backend: 'inprocess',
    error: null,
    parentRunId: null,
    replayOf: null,
    createdAt,
    updatedAt: createdAt,
    durationMs: 10,
    tokens: null,
    costUsd: null,
    unpricedModels: [],
    ...patch,
  };
}

const ids = (rows: readonly RunRow[]) => rows.map((run) => run.id);

describe('searchInput', () => {
  it('turns the address filters into the API query', () => {
    const now = 1_000_000_000;
    expect(searchInput({}, now)).toEqual({ rootOnly: true });
    expect(
      searchInput(
        {
          flow: 'f',
          version: 2,
          status: ['failed'],
          backend: ['temporal'],
          since: '1h',
          until: 5,
          q: ' gw ',
          children: true,
        },
        now,
      ),
    ).toEqual({
      flowId: 'f',
      flowVersion: 2,
      status: ['failed'],
      backend: ['temporal'],
      since: now - 3_600_000,
      until: 5,
      text: 'gw',
      rootOnly: false,
    });
    // A version means nothing without its flow; empty lists and blank text are not sent.
    expect(searchInput({ version: 2, status: [], backend: [], q: '  ' }, now)).toEqual({ rootOnly: true });
  });
});

describe('the rows as pages and changes arrive', () => {
  it('orders newest first, ties by id descending', () => {
    expect(ids([row('a', 1), row('c', 2), row('b', 2)].sort(newestFirst))).toEqual(['c', 'b', 'a']);
  });

  it('appends a page, keeping a run already listed once', () => {
    const rows = [row('d', 4), row('c', 3)];
    expect(ids(appendPage(rows, [row('c', 3), row('b', 2)]))).toEqual(['d', 'c', 'b']);
  });

  it('puts new runs on top and updates the ones the first page covers', () => {
    const rows = [row('c', 3, { status: 'running', durationMs: null }), row('b', 2), row('a', 1)];
    // The first page (2 rows, more on the server) now starts with a new run `d`, and `c` ended.
    const merged = mergeHead(rows, [row('d', 4), row('c', 3, { durationMs: 250 })], false);
    expect(ids(merged)).toEqual(['d', 'c', 'b', 'a']);
    expect(merged[1]).toMatchObject({ status: 'completed', durationMs: 250 });
  });

  it('drops a listed run the first page no longer has within its span (it stopped matching)', () => {
    const rows = [row('c', 3, { status: 'running' }), row('b', 2, { status: 'running' }), row('a', 1)];
    // Filtered on `running`: `c` ended, so the first page holds `b` only — and `a`, older, is kept.
    expect(ids(mergeHead(rows, [row('b', 2, { status: 'running' })], false))).toEqual(['b', 'a']);
    // When the first page is all there is, nothing else matches any more.
    expect(ids(mergeHead(rows, [row('b', 2, { status: 'running' })], true))).toEqual(['b']);
    expect(ids(mergeHead(rows, [], true))).toEqual([]);
  });

  it('applies a status change to a listed run at once', () => {
    const rows = [row('b', 2, { status: 'running' }), row('a', 1)];
    const next = applyStatus(rows, { runId: 'b', status: 'waiting', at: 9 });
    expect(next[0]).toMatchObject({ status: 'waiting', updatedAt: 9 });
    // Nothing to change: the same array (React renders nothing).
    expect(applyStatus(next, { runId: 'b', status: 'waiting', at: 10 })).toBe(next);
    expect(applyStatus(next, { runId: 'zz', status: 'failed', at: 10 })).toBe(next);
    // A status the filter leaves out takes the run off the list.
    expect(ids(applyStatus(rows, { runId: 'b', status: 'completed', at: 9 }, ['running']))).toEqual(['a']);
  });
});

describe('totalsOf', () => {
  it('sums tokens and priced cost, and names the models it could not price', () => {
    const totals = totalsOf([
      row('a', 1, { tokens: { input: 100, output: 20 }, costUsd: 0.5 }),
      row('b', 2, { tokens: { input: 50, output: 5 }, costUsd: null, unpricedModels: ['local:llama'] }),
      row('c', 3, { tokens: { input: 1, output: 1 }, costUsd: 0.25, unpricedModels: ['acme:x', 'local:llama'] }),
      row('d', 4),
    ]);
    expect(totals).toEqual({
      runs: 4,
      input: 151,
      output: 26,
      costUsd: 0.75,
      unpriced: 2,
      unpricedModels: ['acme:x', 'local:llama'],
    });
  });
});
