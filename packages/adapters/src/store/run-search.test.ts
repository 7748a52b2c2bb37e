/**
 * The runs screen's query over both dialects: filters, newest first, cursor paging that neither
 * repeats nor skips, full-text search by the database's index over input, output and error
 * message, and runs stored before the search migration still listed and found.
 */
import type { RunStatus } from '@weft/engine';
import { Migrator } from 'kysely/migration';
import { describe, expect, it } from 'vitest';
import { migrations } from './migrations/index.ts';
import { InvalidCursorError, PREVIEW_CHARS, searchRuns, searchTerms } from './run-search.ts';
import { postgresBackend, sqliteBackend, storeHarness } from './test-support.ts';
import type { RunSearchQuery } from './types.ts';

const backends = () => [sqliteBackend(), postgresBackend()].map((b) => [b.name, b] as const);

describe.each(backends())('%s runs search', (_, backend) => {
  const { store, uid, created } = storeHarness(backend);
  const ids = async (query: Partial<RunSearchQuery>) =>
    (await store.searchRuns({ limit: 50, ...query })).runs.map((run) => run.id);
  const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

  it('filters by flow, version, statuses, backends, time range and root, newest first', async () => {
    const flowId = uid('flow');
    const a = await created({ flowId, backend: 'inngest' });
    await tick();
    const b = await created({ flowId, flowVersion: 2, status: 'waiting', parentRunId: a, parentStepId: 's' });
    await tick();
    const c = await created({ flowId, flowVersion: 2, backend: 'temporal' });
    await store.updateRun(c, { status: 'failed' });
    const [runA, runC] = [await store.getRun(a), await store.getRun(c)];

    expect(await ids({ flowId })).toEqual([c, a]);
    expect(await ids({ flowId, rootOnly: false })).toEqual([c, b, a]);
    expect(await ids({ flowId, flowVersion: 2, rootOnly: false })).toEqual([c, b]);
    expect(await ids({ flowId, status: ['waiting', 'failed'], rootOnly: false })).toEqual([c, b]);
    expect(await ids({ flowId, status: [] })).toEqual([]);
    expect(await ids({ flowId, backend: ['inngest', 'temporal'] })).toEqual([c, a]);
    expect(await ids({ flowId, backend: [] })).toEqual([]);
    // since is inclusive, until exclusive.
    expect(await ids({ flowId, since: runC!.createdAt })).toEqual([c]);
    expect(await ids({ flowId, until: runC!.createdAt })).toEqual([a]);
    expect(await ids({ flowId, since: runA!.createdAt, until: runA!.createdAt + 1 })).toEqual([a]);
    expect(await ids({ flowId: uid('none') })).toEqual([]);
  });

  it('lists what a row needs and no more: previews, no flow snapshot, fixtures as a flag', async () => {
    const flowId = uid('flow');
    const long = 'x'.repeat(PREVIEW_CHARS * 3);
    const id = await created({ flowId, input: { long }, fixtures: { ask: [{ text: 'hi' }] } });
    await store.updateRun(id, { status: 'failed', output: { ok: 1 }, error: { name: 'Error', message: 'boom' } });
    const [run] = (await store.searchRuns({ flowId, limit: 5 })).runs;
    expect(run).toMatchObject({
      id,
      flowId,
      flowVersion: 1,
      status: 'failed',
      backend: 'inprocess',
      outputPreview: '{"ok":1}',
      error: { name: 'Error', message: 'boom' },
      parentRunId: null,
      parentStepId: null,
      replayOf: null,
      hasFixtures: true,
      tokens: { input: 0, output: 0 },
      usage: [],
    });
    expect(run?.inputPreview).toHaveLength(PREVIEW_CHARS + 1);
    expect(run?.inputPreview.startsWith('{"long":"xxx')).toBe(true);
    expect(run?.inputPreview.endsWith('…')).toBe(true);
    expect(run).not.toHaveProperty('flow');
    expect(run).not.toHaveProperty('input');
    expect(run?.endedAt).toBeGreaterThanOrEqual(run?.createdAt ?? Infinity);
  });

  it('pages with a cursor that neither repeats nor skips when runs are added, ties broken by id', async () => {
    const flowId = uid('flow');
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push(await created({ flowId }));
    // Four runs in the same millisecond: the id decides among them.
    const db = backend.connect();
    try {
      await db.updateTable('runs').set({ created_at: 1_000 }).where('id', 'in', made.slice(0, 4)).execute();
    } finally {
      await db.destroy();
    }
    const all = await ids({ flowId });
    const tied = made.slice(0, 4).sort().reverse();
    expect(all.slice(3)).toEqual(tied);

    const first = await store.searchRuns({ flowId, limit: 3 });
    expect(first.runs.map((run) => run.id)).toEqual(all.slice(0, 3));
    await created({ flowId }); // newer: on top of page one, not shifting page two
    const second = await store.searchRuns({ flowId, limit: 3, cursor: first.nextCursor });
    expect(second.runs.map((run) => run.id)).toEqual(all.slice(3, 6));
    const third = await store.searchRuns({ flowId, limit: 3, cursor: second.nextCursor });
    expect(third.runs.map((run) => run.id)).toEqual(all.slice(6));
    expect(third.nextCursor).toBeNull();
    // A page that ends exactly at the last run has no cursor to an empty page.
    expect((await store.searchRuns({ flowId, limit: 8 })).nextCursor).toBeNull();
    expect((await store.searchRuns({ flowId, limit: 7 })).nextCursor).not.toBeNull();
  });

  it('refuses a cursor it did not give out, naming the field', async () => {
    for (const cursor of [
      'nope',
      Buffer.from('[1]').toString('base64url'),
      Buffer.from('["x","y"]').toString('base64url'),
    ]) {
      await expect(store.searchRuns({ limit: 5, cursor })).rejects.toThrow(InvalidCursorError);
    }
    await expect(store.searchRuns({ limit: 5, cursor: 'nope' })).rejects.toThrow(/^cursor: /);
  });

  it('searches input, output and error message by word prefix, all words required', async () => {
    const flowId = uid('flow');
    const refund = await created({ flowId, input: { ticket: 'Customer wants a REFUND for order-4711', n: 99172 } });
    const shipping = await created({ flowId, input: { ticket: 'Where is my parcel?' } });
    await store.updateRun(shipping, { status: 'completed', output: { reply: 'Your parcel left Rotterdam' } });
    const broken = await created({ flowId, input: { ticket: 'hello' } });
    await store.updateRun(broken, { status: 'failed', error: { name: 'Error', message: 'quota exhausted upstream' } });
    const search = (text: string) => ids({ flowId, text });

    expect(await search('refund')).toEqual([refund]);
    expect(await search('refu')).toEqual([refund]); // prefix
    expect(await search('Refund 4711')).toEqual([refund]); // all words, any case, split like the index
    expect(await search('99172')).toEqual([refund]); // numbers are indexed too
    expect(await search('refund rotterdam')).toEqual([]);
    expect(await search('rotterdam')).toEqual([shipping]); // output
    expect(await search('parcel')).toEqual([shipping]); // input and output: listed once
    expect(await search('exhausted')).toEqual([broken]); // error message
    expect(await search('ticket')).toEqual([]); // keys are not text
    expect(await search('  "parcel!"  ')).toEqual([shipping]); // punctuation is not a word
    expect(await search('!!')).toHaveLength(3); // no words: no text filter
    expect(await ids({ flowId, text: 'parcel', status: ['running'] })).toEqual([]);

    // Writing the output again re-indexes it; deleting the run removes it.
    await store.updateRun(shipping, { output: { reply: 'Delivered in Antwerp' } });
    expect(await search('rotterdam')).toEqual([]);
    expect(await search('antwerp')).toEqual([shipping]);
    expect(await store.deleteRun(shipping)).toBe(true);
    expect(await search('antwerp')).toEqual([]);
  });

  it('stores and searches runs whose JSON the search index cannot walk', async () => {
    const flowId = uid('flow');
    // Valid JSON that PostgreSQL's jsonb refuses, and nesting deeper than SQLite's JSON walks.
    const nul = await created({ flowId, input: { note: 'walrus\u0000here', odd: '\ud800' } });
    let deep: unknown = 'narwhal';
    for (let i = 0; i < 1100; i++) deep = [deep];
    const nested = await created({ flowId, input: deep as never });
    await store.updateRun(nul, { status: 'failed', error: { name: 'E', message: 'puffin \u0000 down' } });
    expect(await ids({ flowId, text: 'walrus' })).toEqual([nul]);
    expect(await ids({ flowId, text: 'puffin' })).toEqual([nul]);
    expect(await ids({ flowId, text: 'narwhal' })).toEqual([nested]);
  });

  it('finds the same pages whether the matches are among the newest runs or only older ones', async () => {
    const flowId = uid('flow');
    // Newest last: 'lemur' in runs 0, 1, 5, 9, 10; run 5 failed.
    const made: string[] = [];
    for (let i = 0; i < 12; i++) {
      const word = [0, 1, 5, 9, 10].includes(i) ? 'lemur' : 'otter';
      made.push(await created({ flowId, input: { note: `${word} number ${i}` } }));
      await tick();
    }
    await store.updateRun(made[5]!, { status: 'failed' });
    const newestFirst = (indexes: number[]) => indexes.map((i) => made[i]!).reverse();
    const db = backend.connect();
    try {
      // The window is how many recent runs are tested before the index's older matches are used.
      for (const window of [1, 2, 3, 5, 50]) {
        const page = (query: Partial<RunSearchQuery>) =>
          searchRuns(db, backend.name, { flowId, text: 'lemur', limit: 2, ...query }, window);
        const first = await page({});
        const second = await page({ cursor: first.nextCursor });
        const third = await page({ cursor: second.nextCursor });
        expect(
          [first, second, third].map((p) => p.runs.map((run) => run.id)),
          `window ${window}`,
        ).toEqual([newestFirst([9, 10]), newestFirst([1, 5]), newestFirst([0])]);
        expect(third.nextCursor).toBeNull();
        expect((await page({ status: ['failed'] })).runs.map((run) => run.id)).toEqual([made[5]]);
        expect((await page({ text: 'lemur 9', limit: 5 })).runs.map((run) => run.id)).toEqual([made[9]]);
      }
    } finally {
      await db.destroy();
    }
  });
});

it('splits a search into the words both indexes see', () => {
  expect(searchTerms('  Refund, order-4711!  café ')).toEqual(['Refund', 'order', '4711', 'café']);
  expect(searchTerms('"*:&|()')).toEqual([]);
  expect(searchTerms(Array.from({ length: 30 }, (_, i) => `w${i}`).join(' '))).toHaveLength(16);
});

// A database that ran the store before search existed: its runs must list, and be found.
describe.each(backends())('%s runs from before the search migration', (_, backend) => {
  const { store, open } = storeHarness(backend);

  it('lists and finds them, with their duration and no token totals', async () => {
    // The harness opened (and migrated) a store on this database: start over from 0003.
    const db = backend.connect();
    try {
      const migrator = new Migrator({
        db,
        provider: { getMigrations: async () => migrations },
        migrationTableName: 'run_store_migration',
        migrationLockTableName: 'run_store_migration_lock',
      });
      const down = await migrator.migrateTo('0003_replay_of');
      expect(down.error).toBeUndefined();
      const row = (id: string, status: RunStatus, createdAt: number, updatedAt: number, output: string | null) => ({
        id,
        flow_id: 'old',
        flow_version: 1,
        flow: '{}',
        input: JSON.stringify({ ticket: `legacy ${id}` }),
        status,
        output,
        error: null,
        backend: 'inprocess',
        created_at: createdAt,
        updated_at: updatedAt,
      });
      await db
        .insertInto('runs')
        .values([
          row('old-done', 'completed', 1_000, 1_750, JSON.stringify({ reply: 'archived answer' })),
          row('old-live', 'running', 2_000, 2_000, null),
        ])
        .execute();
    } finally {
      await db.destroy();
    }
    const upgraded = await open();
    const page = await upgraded.searchRuns({ flowId: 'old', limit: 10 });
    expect(page.runs.map((run) => [run.id, run.endedAt, run.tokens, run.usage])).toEqual([
      ['old-live', null, null, []],
      ['old-done', 1_750, null, []],
    ]);
    expect((await upgraded.searchRuns({ text: 'archived', limit: 10 })).runs.map((run) => run.id)).toEqual([
      'old-done',
    ]);
    expect((await upgraded.searchRuns({ text: 'legacy', limit: 10 })).runs).toHaveLength(2);
    expect(await upgraded.getRun('old-done')).toMatchObject({ endedAt: 1_750, tokens: null });
    expect(store.dialect).toBe(backend.name);
  });
});
