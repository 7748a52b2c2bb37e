/**
 * The run store's commit over both dialects: journal entries (the first result of a step
 * stands), events (keyed ones stored once, the rest numbered in order), several runs in one
 * all-or-nothing commit, and two connections committing to one run at once.
 */
import type { RunEventInput } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { completed, postgresBackend, sqliteBackend, stepEvents, storeHarness } from './test-support.ts';
import type { CommitBatch, JournalEntry } from './types.ts';

// The same behaviours, word for word, against both dialects.
describe.each([sqliteBackend(), postgresBackend()].map((b) => [b.name, b] as const))('%s run store', (_, backend) => {
  const { store, open, created } = storeHarness(backend);
  it('round-trips journal entries, failures included', async () => {
    const runId = await created();
    const entries: JournalEntry[] = [
      completed('a', { text: 'hi', n: 0.1, list: [null, true] }),
      {
        stepId: 'b',
        kind: 'code',
        inputHash: 'h-b',
        status: 'failed',
        output: null,
        error: { name: 'E', message: 'no' },
      },
      completed('c', null),
    ];
    await store.commit([{ runId, journal: entries, events: [] }]);
    expect(await store.loadJournal(runId)).toEqual(entries);
    // The first result of a step stands.
    await store.commit([{ runId, journal: [completed('a', 'other')], events: [] }]);
    expect((await store.loadJournal(runId))[0]?.output).toEqual(entries[0]?.output);
    expect(await store.loadJournal(await created())).toEqual([]);
  });

  it('dedupes keyed events, numbers the rest in order, and returns what it stored', async () => {
    const runId = await created();
    const batch: CommitBatch = {
      runId,
      journal: [completed('a')],
      events: [
        { type: 'run.started', flowId: 'flow', flowVersion: 1, input: { ticket: 'hi' }, backend: 'inprocess' },
        ...stepEvents('a'),
        { type: 'step.started', stepId: 'a', stepType: 'tool' }, // same key within the batch
      ],
    };
    const first = await store.commit([batch]);
    expect(first.map((e) => e.type)).toEqual(['run.started', 'step.started', 'step.completed']);
    expectIncreasing(first.map((e) => e.seq));
    expect(first.every((e) => e.runId === runId && typeof e.at === 'number')).toBe(true);
    expect(await store.readEvents(runId)).toEqual(first);

    // A replay re-emits the same facts: nothing new.
    expect(await store.commit([batch])).toEqual([]);
    const more = await store.commit([{ runId, journal: [], events: [...stepEvents('a'), ...stepEvents('b')] }]);
    expect(more.map((e) => (e as { stepId: string }).stepId)).toEqual(['b', 'b']);
    const all = await store.readEvents(runId);
    expect(all).toEqual([...first, ...more]);
    expectIncreasing(all.map((e) => e.seq));
  });

  it('always appends deltas and reads after a seq', async () => {
    const runId = await created();
    const deltas: RunEventInput[] = [
      { type: 'step.delta', stepId: 'a', text: 'he' },
      { type: 'step.delta', stepId: 'a', text: 'llo' },
    ];
    await store.commit([{ runId, journal: [], events: deltas }]);
    await store.commit([{ runId, journal: [], events: deltas }]);
    const all = await store.readEvents(runId);
    expect(all.map((e) => (e as { text: string }).text)).toEqual(['he', 'llo', 'he', 'llo']);
    expectIncreasing(all.map((e) => e.seq));
    expect(await store.readEvents(runId, all[1]!.seq)).toEqual(all.slice(2));
    expect(await store.readEvents(runId, all[3]!.seq)).toEqual([]);
  });

  it('gives back every event type exactly as emitted', async () => {
    const runId = await created();
    const error = { name: 'StepFailedError', message: 'x', code: 'step_failed', stepId: 's' };
    const events: RunEventInput[] = [
      { type: 'run.started', flowId: 'f', flowVersion: 2, input: null, backend: 'inprocess', parentRunId: 'p' },
      { type: 'step.started', stepId: 's', stepType: 'llm', parentId: 'loop', input: { q: [1, 2] } },
      { type: 'step.delta', stepId: 's', text: 'tok' },
      {
        type: 'step.completed',
        stepId: 's',
        output: { text: 'hi' },
        usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 },
      },
      { type: 'step.retrying', stepId: 't', attempt: 1, error, delayMs: 1000 },
      { type: 'step.failed', stepId: 't', error },
      { type: 'approval.requested', stepId: 'ok', prompt: 'Ship?', timeoutMs: 60_000 },
      { type: 'approval.resolved', stepId: 'ok', approved: true, by: 'ann', comment: null, timedOut: false },
      { type: 'child.started', stepId: 'sp', childRunId: 'c1', flowId: 'child' },
      { type: 'run.completed', output: [1, 'two', { three: 3 }] },
      { type: 'run.failed', error },
      { type: 'run.cancelled', reason: 'user' },
    ] as RunEventInput[];
    const stored = await store.commit([{ runId, journal: [], events }]);
    const read = await store.readEvents(runId);
    expect(read).toStrictEqual(stored);
    expect(read.map(({ runId: _r, seq: _s, at: _a, ...event }) => event)).toStrictEqual(events);
  });

  it('commits several runs at once, each with its own numbering', async () => {
    const [a, b] = [await created(), await created()];
    const stored = await store.commit([
      { runId: a, journal: [completed('x')], events: stepEvents('x') },
      { runId: b, journal: [completed('y')], events: stepEvents('y') },
      { runId: a, journal: [], events: [{ type: 'step.delta', stepId: 'z', text: '.' }] },
    ]);
    // Per run in commit order (runs may come back grouped).
    expect(stored.filter((e) => e.runId === a)).toHaveLength(3);
    expect(stored.filter((e) => e.runId === b)).toHaveLength(2);
    expectIncreasing(stored.filter((e) => e.runId === a).map((e) => e.seq));
    expect(await store.readEvents(a)).toEqual(stored.filter((e) => e.runId === a));
    expect(await store.readEvents(b)).toEqual(stored.filter((e) => e.runId === b));
  });

  it('writes all batches or none', async () => {
    const runId = await created();
    const failing = store.commit([
      { runId, journal: [completed('a')], events: stepEvents('a') },
      { runId: 'no-such-run', journal: [completed('b')], events: stepEvents('b') },
    ]);
    await expect(failing).rejects.toThrow();
    expect(await store.loadJournal(runId)).toEqual([]);
    expect(await store.readEvents(runId)).toEqual([]);
    // The store is still usable: the same batch goes in as if nothing had happened.
    const ok = await store.commit([{ runId, journal: [completed('a')], events: stepEvents('a') }]);
    expect(ok.map((e) => e.type)).toEqual(['step.started', 'step.completed']);
    expect(await store.loadJournal(runId)).toEqual([completed('a')]);
  });

  it('keeps seq unique and increasing when two connections commit to one run at once', async () => {
    const runId = await created();
    const other = await open();
    const commits = Array.from({ length: 40 }, (_, i) =>
      (i % 2 === 0 ? store : other).commit([
        { runId, journal: [completed(`s${i}`)], events: [...stepEvents(`s${i}`), ...stepEvents(`s${i}`)] },
      ]),
    );
    const stored = (await Promise.all(commits)).flat();
    expect(stored).toHaveLength(80);
    const seqs = (await store.readEvents(runId)).map((e) => e.seq);
    expect(seqs).toHaveLength(80);
    expectIncreasing(seqs);
    expect(stored.map((e) => e.seq).sort((x, y) => x - y)).toEqual(seqs);
  });

  it('skips keys another connection stored after this one last wrote the run', async () => {
    const runId = await created();
    const other = await open();
    const delta: RunEventInput = { type: 'step.delta', stepId: 'a', text: '.' };
    // Both connections have written the run (the SQLite store keeps its keys in memory).
    await store.commit([{ runId, journal: [], events: [delta] }]);
    await other.commit([{ runId, journal: [], events: [delta] }]);
    const theirs = await other.commit([{ runId, journal: [completed('a')], events: stepEvents('a') }]);
    // A replay in the first connection: only what is new goes in, and the first result stands.
    const mine = await store.commit([
      { runId, journal: [completed('a', 'other'), completed('b')], events: [...stepEvents('a'), ...stepEvents('b')] },
    ]);
    expect(mine.map((e) => [e.type, (e as { stepId: string }).stepId])).toEqual([
      ['step.started', 'b'],
      ['step.completed', 'b'],
    ]);
    expect(await store.loadJournal(runId)).toEqual([completed('a'), completed('b')]);
    const all = await store.readEvents(runId);
    expect(all.slice(2)).toEqual([...theirs, ...mine]);
    expectIncreasing(all.map((e) => e.seq));
  });
});

/** Event seqs increase strictly within a run (journal rows share the numbering, so they may skip). */
function expectIncreasing(seqs: number[]): void {
  expect(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!)).toBe(true);
}
