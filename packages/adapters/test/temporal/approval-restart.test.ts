/**
 * An approval outlives its worker on Temporal: a worker process runs the approval flow until it
 * parks at the approval (the request is stored), the worker is SIGKILLed, a new worker process
 * starts, the decision is signalled through the client helper, and the run completes with it.
 * The step before the approval is not executed again: its completed activity is replayed.
 */
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duplicateKeys } from '../../src/inprocess/test-support.ts';
import type { RunStore } from '../../src/store/types.ts';
import { approveTemporalRun, awaitTemporalRun } from '../../src/temporal/client.ts';
import type { TemporalDevServer } from '../../src/temporal/dev-server.ts';
import { approvalFlow } from '../fixtures/flows.ts';
import { closeTestbed, completedCallSteps, openTestbed, startRecordedRun, startWorkerChild } from './support.ts';

let server: TemporalDevServer | undefined;
let store: RunStore;
let client: Client;
let dir: string;
beforeAll(async () => {
  ({ server, store, client, dir } = await openTestbed('weft-temporal-approval-'));
}, 15 * 60_000);
afterAll(() => closeTestbed({ server, store, client, dir }), 30_000);

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('temporal: an approval across a worker restart', () => {
  it('parks on worker A, which is killed; decided and completed on worker B', { timeout: 120_000 }, async () => {
    if (!server) throw new Error('no server');
    const taskQueue = `weft-approval-${process.pid}`;
    const config = { address: server.address, taskQueue, storePath: join(dir, 'weft.db'), log: join(dir, 'fx.log') };
    const cases = [
      { runId: 'approve-yes', approved: true },
      { runId: 'approve-no', approved: false },
    ];

    const a = await startWorkerChild(config);
    for (const { runId } of cases)
      await startRecordedRun(store, { client, taskQueue, flow: approvalFlow, input: { amount: 42 }, runId });
    for (const { runId } of cases)
      await until(
        async () => (await store.readEvents(runId)).some((e) => e.type === 'approval.requested'),
        `${runId} to request its approval`,
      );
    await a.kill();
    for (const { runId } of cases) {
      const history = await client.workflow.getHandle(runId).fetchHistory();
      expect(completedCallSteps(history.events ?? [])).toEqual(['draft']);
      expect((await store.getRun(runId))?.status).not.toBe('completed');
    }

    const b = await startWorkerChild(config);
    try {
      for (const { runId, approved } of cases)
        await approveTemporalRun(client, runId, { stepId: 'review', approved, by: 'bea', comment: 'checked' });
      for (const { runId } of cases) await awaitTemporalRun(client, runId);
    } finally {
      await b.kill();
    }

    for (const { runId, approved } of cases) {
      const run = await store.getRun(runId);
      expect(run?.status, JSON.stringify(run?.error)).toBe('completed');
      expect(run?.output).toMatchObject({
        draft: 'refund 42',
        decision: { approved, by: 'bea', comment: 'checked' },
      });
      const events = await store.readEvents(runId);
      expect(duplicateKeys(events)).toEqual([]);
      // The code step ran once, on A: B replayed its completed activity from the history.
      expect(events.filter((e) => e.type === 'step.started' && e.stepId === 'draft')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'step.completed' && e.stepId === 'draft')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'approval.resolved')).toMatchObject([{ approved, by: 'bea' }]);
      const history = await client.workflow.getHandle(runId).fetchHistory();
      expect(completedCallSteps(history.events ?? [])).toEqual(['draft']);
    }
  });
});
