/**
 * An approval outlives the process that asked for it: process A starts a run that parks at an
 * approval and exits; a fresh runner on a fresh connection (process B) records the decision,
 * and the run resumes from its journal and completes with that decision in its output.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approve, bothBackends, duplicateKeys } from '../src/inprocess/test-support.ts';
import { createWorkerRunner } from './fixtures/flows.ts';
import { runWorker } from './worker-process.ts';

describe.each(bothBackends())('%s: an approval across a restart', (_, backend) => {
  let dir: string;
  beforeAll(async () => {
    await backend.setup();
    dir = mkdtempSync(join(tmpdir(), 'weft-approval-'));
  });
  afterAll(async () => {
    await backend.teardown();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const approved of [true, false]) {
    it(`parks in process A, is ${approved ? 'approved' : 'rejected'} in process B, and completes`, async () => {
      const runId = `restart-${approved}-${backend.name}`;
      const log = join(dir, `${runId}.log`);
      const a = await runWorker('park', { storeUrl: backend.url, runId, log, pauseMs: 0, input: { amount: 42 } });
      expect(a.code, a.stderr).toBe(0);
      const parked = JSON.parse(a.lines.find((line) => line.startsWith('done '))?.slice(5) ?? '{}');
      expect(parked).toMatchObject({
        runId,
        status: 'waiting',
        waitingFor: [{ stepId: 'review', reason: 'approval' }],
      });

      // Process B: a new connection and a new runner; nothing of A survives but the store.
      const store = await backend.open();
      const b = createWorkerRunner(store, log, 0);
      expect(await store.getRun(runId)).toMatchObject({ status: 'waiting', owner: null });
      const { accepted, outcome } = await approve(b, runId, 'review', { approved, by: 'bea', comment: 'checked' });
      await b.close();
      expect(accepted).toBe(true);
      expect(outcome).toMatchObject({
        status: 'completed',
        output: { draft: 'refund 42', decision: { approved, by: 'bea', comment: 'checked' } },
      });
      // The code step ran once, in A: B answered it from the journal.
      const events = await store.readEvents(runId);
      expect(duplicateKeys(events)).toEqual([]);
      expect(events.filter((e) => e.type === 'step.completed' && e.stepId === 'draft')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'approval.resolved')).toMatchObject([{ approved, by: 'bea' }]);
    });
  }
});
