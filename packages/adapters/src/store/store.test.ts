/**
 * The run store over both dialects: runs (create, list, update, delete with their children),
 * leases, approvals, and migrating an existing database. Committing journal entries and events
 * is in store-commit.test.ts; saved flows in flow-store.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { completed, postgresBackend, sqliteBackend, stepEvents, storeHarness } from './test-support.ts';
import type { RunStore } from './types.ts';

// The same behaviours, word for word, against both dialects.
describe.each([sqliteBackend(), postgresBackend()].map((b) => [b.name, b] as const))('%s run store', (_, backend) => {
  const { store, open, uid, newRun, created } = storeHarness(backend);
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
