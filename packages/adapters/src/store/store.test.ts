import type { RunEventInput } from '@weft/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completed, postgresBackend, sqliteBackend, stepEvents } from './test-support.ts';
import type { CommitBatch, JournalEntry, NewRun, RunStore } from './types.ts';

// The same behaviours, word for word, against both dialects.
describe.each([sqliteBackend(), postgresBackend()].map((b) => [b.name, b] as const))('%s run store', (_, backend) => {
  let store: RunStore;
  const opened: RunStore[] = [];
  const open = async (): Promise<RunStore> => {
    const s = await backend.open();
    opened.push(s);
    return s;
  };

  beforeAll(async () => {
    await backend.setup();
    store = await open();
  });
  afterAll(async () => {
    for (const s of opened) await s.close();
    await backend.teardown();
  });

  // Tests share one database: every id is unique so no test sees another's rows.
  let counter = 0;
  const uid = (prefix: string): string => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
  const newRun = (overrides: Partial<NewRun> = {}): NewRun => ({
    id: uid('run'),
    flowId: 'flow',
    flowVersion: 1,
    flow: { irVersion: 1, id: 'flow', steps: [] },
    input: { ticket: 'hi' },
    backend: 'inprocess',
    ...overrides,
  });
  const created = async (overrides: Partial<NewRun> = {}): Promise<string> => {
    const run = newRun(overrides);
    await store.createRun(run);
    return run.id;
  };
  it('creates and reads a run, JSON exactly as given', async () => {
    const input = { z: 1, a: [1.5, -0.25, 1e21, null, { deep: { é: 'ü', n: null } }], m: 'x' };
    const run = newRun({ input, parentRunId: 'p', parentStepId: 's', fixtures: { agent: [{ text: '3' }] } });
    await store.createRun(run);
    const got = await store.getRun(run.id);
    expect(got).toMatchObject({
      ...run,
      status: 'running',
      output: null,
      error: null,
      owner: null,
      leaseUntil: null,
    });
    // Key order and number spelling survive too (text, not jsonb).
    expect(JSON.stringify(got?.input)).toBe(JSON.stringify(input));
    expect(got?.createdAt).toBeTypeOf('number');
    expect(got?.updatedAt).toBe(got?.createdAt);
    expect(await store.getRun('missing')).toBeUndefined();
    await expect(store.createRun(run)).rejects.toThrow();
  });

  it('lists runs newest first and filters them', async () => {
    const flowId = uid('flow');
    const a = await created({ flowId, backend: 'inngest' });
    await new Promise((r) => setTimeout(r, 5));
    const b = await created({ flowId, status: 'waiting', parentRunId: a });
    await new Promise((r) => setTimeout(r, 5));
    const c = await created({ flowId });
    const ids = async (filter: Parameters<RunStore['listRuns']>[0]) =>
      (await store.listRuns({ flowId, ...filter })).map((r) => r.id);

    expect(await ids({})).toEqual([c, b, a]);
    expect(await ids({ status: ['waiting'] })).toEqual([b]);
    expect(await ids({ status: ['waiting', 'running'] })).toEqual([c, b, a]);
    expect(await ids({ status: [] })).toEqual([]);
    expect(await ids({ backend: 'inngest' })).toEqual([a]);
    expect(await ids({ parentRunId: a })).toEqual([b]);
    expect(await ids({ limit: 2 })).toEqual([c, b]);
    const bRecord = await store.getRun(b);
    expect(await ids({ since: bRecord?.createdAt })).toEqual([c, b]);
    expect((await store.listRuns()).map((r) => r.id)).toEqual(expect.arrayContaining([a, b, c]));
  });

  it('updates status, output and error, and clears them with null', async () => {
    const id = await created();
    const before = await store.getRun(id);
    await new Promise((r) => setTimeout(r, 5));
    await store.updateRun(id, { status: 'completed', output: { answer: [1, { x: null }] } });
    let run = await store.getRun(id);
    expect(run).toMatchObject({ status: 'completed', output: { answer: [1, { x: null }] }, error: null });
    expect(run?.updatedAt).toBeGreaterThan(before?.updatedAt ?? Infinity);
    await store.updateRun(id, { status: 'failed', output: null, error: { name: 'Error', message: 'boom', code: 'x' } });
    run = await store.getRun(id);
    expect(run).toMatchObject({ status: 'failed', output: null, error: { name: 'Error', message: 'boom', code: 'x' } });
    expect(run?.input).toEqual(before?.input);
  });

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

  it('claims, renews, takes over and releases runs', async () => {
    const id = await created();
    const claim = (owner: string, now: number, takeOverFrom?: string) =>
      store.claimRun(id, { owner, leaseUntil: now + 1000, now, ...(takeOverFrom ? { takeOverFrom } : {}) });
    expect(await claim('A', 0)).toBe(true);
    expect(await store.getRun(id)).toMatchObject({ owner: 'A', leaseUntil: 1000 });
    expect(await claim('A', 500)).toBe(true); // re-claim by the owner
    expect(await claim('B', 900)).toBe(false); // lease still held (until 1500)
    expect(await store.renewLease(id, 'A', 5000)).toBe(true);
    expect(await store.renewLease(id, 'B', 9000)).toBe(false);
    expect(await claim('B', 4000)).toBe(false);
    expect(await claim('B', 4000, 'A')).toBe(true); // A is known dead
    expect(await store.renewLease(id, 'A', 9000)).toBe(false);
    expect(await claim('C', 5001)).toBe(true); // B's lease (until 5000) ended
    await store.releaseRun(id, 'B'); // not B's any more: no effect
    expect((await store.getRun(id))?.owner).toBe('C');
    await store.releaseRun(id, 'C');
    expect(await store.getRun(id)).toMatchObject({ owner: null, leaseUntil: null });
    expect(await claim('D', 0)).toBe(true);
    expect(await store.claimRun('missing', { owner: 'A', leaseUntil: 1, now: 0 })).toBe(false);
  });

  it('records approvals once and lets exactly one of ten concurrent decisions win', async () => {
    const runId = await created();
    await store.requestApproval({ runId, stepId: 'ok', prompt: 'Ship?', deadline: 2000, now: 1000 });
    await store.requestApproval({ runId, stepId: 'ok', prompt: 'Changed?', deadline: null, now: 1500 });
    const pending = {
      runId,
      stepId: 'ok',
      prompt: 'Ship?',
      status: 'pending',
      requestedAt: 1000,
      deadline: 2000,
      decidedBy: null,
      comment: null,
      decidedAt: null,
    };
    expect(await store.getApproval(runId, 'ok')).toEqual(pending);
    expect(await store.listApprovals({ runId, status: 'pending' })).toEqual([pending]);

    const other = await open();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? store : other).resolveApproval(runId, 'ok', {
          status: i % 3 === 0 ? 'rejected' : 'approved',
          by: `user${i}`,
          comment: `c${i}`,
          at: 3000 + i,
        }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect(await store.getApproval(runId, 'ok')).toEqual({
      ...pending,
      status: winner % 3 === 0 ? 'rejected' : 'approved',
      decidedBy: `user${winner}`,
      comment: `c${winner}`,
      decidedAt: 3000 + winner,
    });
    expect(await store.resolveApproval(runId, 'ok', { status: 'approved', by: null, comment: null, at: 1 })).toBe(
      false,
    );
    expect(await store.resolveApproval(runId, 'nope', { status: 'approved', by: null, comment: null, at: 1 })).toBe(
      false,
    );
    expect(await store.listApprovals({ runId, status: 'pending' })).toEqual([]);
    expect((await store.listApprovals({ runId })).map((a) => a.stepId)).toEqual(['ok']);
    expect(await store.getApproval(runId, 'nope')).toBeUndefined();
  });

  const flowDoc = (id: string, name = `Flow ${id}`, extra: Record<string, unknown> = {}) => ({
    irVersion: 1,
    id,
    name,
    ...extra,
    steps: [{ id: 'a', type: 'transform', value: '=1' }],
  });

  it('saves flows as increasing immutable versions and reads the latest or a given one', async () => {
    const id = uid('flow');
    const v1 = await store.flows.save(flowDoc(id, 'First', { version: 7 }));
    expect(v1).toMatchObject({ id, version: 1, name: 'First' });
    // The doc's own version is replaced in place (key order kept).
    expect(JSON.stringify(v1.doc)).toBe(JSON.stringify(flowDoc(id, 'First', { version: 1 })));
    const v2 = await store.flows.save(flowDoc(id, 'Second'));
    expect(v2.version).toBe(2);
    expect(v2.doc).toEqual({ ...flowDoc(id, 'Second'), version: 2 });

    expect(await store.flows.get(id)).toEqual(v2);
    expect(await store.flows.get(id, 1)).toEqual(v1);
    expect(await store.flows.get(id, 3)).toBeUndefined();
    expect(await store.flows.get('missing')).toBeUndefined();
    expect((await store.flows.versions(id)).map((v) => [v.version, v.name])).toEqual([
      [1, 'First'],
      [2, 'Second'],
    ]);
    const summary = (await store.flows.list()).find((f) => f.id === id);
    expect(summary).toMatchObject({ id, name: 'Second', latestVersion: 2, createdAt: v1.createdAt });
    expect(summary?.updatedAt).toBeGreaterThanOrEqual(v1.createdAt);
  });

  it('creates a flow atomically: of concurrent creates of one id, across connections, exactly one wins', async () => {
    const id = uid('flow');
    const other = await open();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? store : other).flows.create(flowDoc(id, `c${i}`))),
    );
    const won = results.filter((r) => r !== undefined);
    expect(won).toHaveLength(1);
    expect(won[0]).toMatchObject({ id, version: 1 });
    expect(await store.flows.versions(id)).toHaveLength(1);
    expect(await store.flows.get(id)).toEqual(won[0]);
    // Taken: no new version, nothing changed.
    expect(await store.flows.create(flowDoc(id, 'again'))).toBeUndefined();
    expect((await store.flows.list()).find((f) => f.id === id)).toMatchObject({ latestVersion: 1, name: won[0]!.name });
    // A deleted flow's id is free again, at its next version (as save revives it).
    await store.flows.delete(id);
    const revived = await other.flows.create(flowDoc(id, 'Revived'));
    expect(revived).toMatchObject({ id, version: 2, name: 'Revived' });
    expect((await store.flows.versions(id)).map((v) => v.version)).toEqual([2]);
  });

  it('gives concurrent saves of one flow distinct versions, across connections', async () => {
    const id = uid('flow');
    const other = await open();
    const saved = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? store : other).flows.save(flowDoc(id, `n${i}`))),
    );
    expect(saved.map((r) => r.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(await store.flows.versions(id)).toHaveLength(12);
    expect((await other.flows.get(id))?.version).toBe(12);
  });

  it('deletes a flow with its versions; saving the id again continues the numbering', async () => {
    const id = uid('flow');
    await store.flows.save(flowDoc(id));
    await store.flows.save(flowDoc(id));
    expect(await store.flows.delete(id)).toBe(true);
    expect(await store.flows.delete(id)).toBe(false);
    expect(await store.flows.delete('missing')).toBe(false);
    expect(await store.flows.get(id)).toBeUndefined();
    expect(await store.flows.get(id, 1)).toBeUndefined();
    expect(await store.flows.versions(id)).toEqual([]);
    expect((await store.flows.list()).some((f) => f.id === id)).toBe(false);
    const again = await store.flows.save(flowDoc(id, 'Reborn'));
    expect(again.version).toBe(3);
    expect((await store.flows.list()).find((f) => f.id === id)).toMatchObject({ latestVersion: 3, name: 'Reborn' });
    expect((await store.flows.versions(id)).map((v) => v.version)).toEqual([3]);
  });

  it('deletes a run with its events, journal, approvals and child runs, and nothing else', async () => {
    const root = await created();
    const child = await created({ parentRunId: root, parentStepId: 's' });
    const grandchild = await created({ parentRunId: child, parentStepId: 't' });
    const bystander = await created();
    for (const runId of [root, child, grandchild, bystander]) {
      await store.commit([{ runId, journal: [completed('a')], events: stepEvents('a') }]);
      await store.commit([{ runId, journal: [completed('b')], events: stepEvents('b') }]);
      await store.requestApproval({ runId, stepId: 'ok', prompt: 'Ship?', deadline: null, now: 1 });
    }
    expect(await store.deleteRun(child)).toBe(true);
    for (const runId of [child, grandchild]) {
      expect(await store.getRun(runId)).toBeUndefined();
      expect(await store.readEvents(runId)).toEqual([]);
      expect(await store.loadJournal(runId)).toEqual([]);
      expect(await store.listApprovals({ runId })).toEqual([]);
    }
    expect(await store.readEvents(root)).toHaveLength(4);
    expect(await store.deleteRun(root)).toBe(true);
    expect(await store.deleteRun(root)).toBe(false);
    expect(await store.deleteRun('missing')).toBe(false);
    expect(await store.getRun(root)).toBeUndefined();
    expect(await store.readEvents(root)).toEqual([]);
    expect(await store.listApprovals({ runId: root })).toEqual([]);
    // The others are untouched and still take commits.
    expect(await store.readEvents(bystander)).toHaveLength(4);
    expect(await store.loadJournal(bystander)).toHaveLength(2);
    expect(await store.listApprovals({ runId: bystander })).toHaveLength(1);
    const more = await store.commit([{ runId: bystander, journal: [], events: stepEvents('c') }]);
    expect(more).toHaveLength(2);
    // A deleted run takes no more commits.
    await expect(store.commit([{ runId: root, journal: [], events: stepEvents('z') }])).rejects.toThrow();
  });

  it('migrates idempotently: opening again keeps the data', async () => {
    const runId = await created();
    await store.commit([{ runId, journal: [completed('a')], events: stepEvents('a') }]);
    const again = await open();
    const third = await open();
    expect(again.dialect).toBe(backend.name);
    expect(await third.getRun(runId)).toMatchObject({ id: runId });
    expect(await again.readEvents(runId)).toHaveLength(2);
  });
});

/** Event seqs increase strictly within a run (journal rows share the numbering, so they may skip). */
function expectIncreasing(seqs: number[]): void {
  expect(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!)).toBe(true);
}
