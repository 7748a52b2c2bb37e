/**
 * Worker crash on a real Temporal dev server: a worker PROCESS runs the crash flow of
 * fixtures/flows.ts (code, host-tool side effects, a 3-turn agent loop with tool calls, a
 * parallel, a spawned child) on five runs at once, each frozen right after a different side
 * effect (before that activity completes); the worker is SIGKILLed, a new worker process starts,
 * and every run must complete with the output of an uninterrupted run, without executing again
 * any call whose activity Temporal had recorded as completed before the kill.
 *
 * The activity in flight at the kill is retried promptly because calls heartbeat and are
 * scheduled with a heartbeatTimeout (workflows.ts): Temporal times the dead attempt out after
 * that, not after the step's 10-minute startToClose, and the retry runs on the new worker.
 */
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { Json } from '@weft/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childRunId } from '../../src/backends/children.ts';
import { duplicateKeys } from '../../src/inprocess/test-support.ts';
import type { RunStore } from '../../src/store/types.ts';
import { awaitTemporalRun } from '../../src/temporal/client.ts';
import type { TemporalDevServer } from '../../src/temporal/dev-server.ts';
import { CRASH_MARKS, crashFixtures, crashFlow } from '../fixtures/flows.ts';
import {
  closeTestbed,
  completedCallSteps,
  openTestbed,
  readLog,
  startRecordedRun,
  startWorkerChild,
} from './support.ts';

const MARK_SPEC = {
  mark: {
    description: 'appends its id to the side-effect log',
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  },
};
const INPUT = { n: 4 };

/** Where each crashed run is frozen: the side effect (log id) whose activity is in flight at the kill. */
const PARK_AT = ['m1', 'agent/tool#2.0', 'fan.b/fb1', 'child:kid', 'm2'];

let server: TemporalDevServer | undefined;
let store: RunStore;
let client: Client;
let dir: string;
beforeAll(async () => {
  ({ server, store, client, dir } = await openTestbed('weft-temporal-crash-'));
}, 15 * 60_000);
afterAll(() => closeTestbed({ server, store, client, dir }), 30_000);

/** Log ids as the crash fixtures name them: the child's with a "child:" prefix. */
function logIdsOf(runId: string, lines: { runId: string; id: string }[]): string[] {
  return lines.filter((line) => line.runId === runId || line.runId === childRunId(runId, 'sub')).map((line) => line.id);
}

describe('temporal: SIGKILL of the worker process mid-run', () => {
  it('completes every crashed run to the uninterrupted output, re-executing no completed activity', {
    timeout: 180_000,
  }, async () => {
    if (!server) throw new Error('no server');
    const taskQueue = `weft-crash-${process.pid}`;
    const log = join(dir, 'fx.log');
    const runIds = PARK_AT.map((_, index) => `crash-${index}`);
    const park: Record<string, string> = {};
    PARK_AT.forEach((id, index) => {
      const runId = runIds[index] ?? '';
      park[id.startsWith('child:') ? childRunId(runId, 'sub') : runId] = id;
    });
    const start = (runId: string) =>
      startRecordedRun(store, {
        client,
        taskQueue,
        flow: crashFlow,
        input: INPUT,
        fixtures: crashFixtures,
        hostTools: MARK_SPEC,
        runId,
      });

    const first = await startWorkerChild({
      address: server.address,
      taskQueue,
      storePath: join(dir, 'weft.db'),
      log,
      park,
    });

    // The reference: the same flow on the same worker, never interrupted.
    await start('reference');
    await awaitTemporalRun(client, 'reference');
    const reference = await store.getRun('reference');
    expect(reference?.status, JSON.stringify(reference?.error)).toBe('completed');
    expect(logIdsOf('reference', readLog(log)).sort()).toEqual([...CRASH_MARKS].sort());

    // Five runs, each frozen after a different side effect; then the worker dies.
    for (const runId of runIds) await start(runId);
    await Promise.all(
      Object.entries(park).map(([runId, id]) =>
        first.waitFor((line) => line === `parked ${runId} ${id}`, `run ${runId} parked at ${id}`),
      ),
    );
    await first.kill();
    const loggedBefore = readLog(log);
    // What Temporal had recorded as completed when the worker died (nothing completes after).
    const completedBefore = new Map<string, string[]>();
    for (const runId of runIds) {
      const parent = completedCallSteps((await client.workflow.getHandle(runId).fetchHistory()).events ?? []);
      const childId = childRunId(runId, 'sub');
      const child = (await store.getRun(childId))
        ? completedCallSteps((await client.workflow.getHandle(childId).fetchHistory()).events ?? [])
        : [];
      completedBefore.set(runId, [...parent, ...child.map((id) => `child:${id}`)]);
      expect((await store.getRun(runId))?.status).toBe('running');
    }

    const second = await startWorkerChild({ address: server.address, taskQueue, storePath: join(dir, 'weft.db'), log });
    try {
      for (const runId of runIds) await awaitTemporalRun(client, runId);
    } finally {
      await second.kill();
    }

    const loggedAfter = readLog(log).slice(loggedBefore.length);
    runIds.forEach((runId, index) => {
      const parkedAt = PARK_AT[index];
      const before = logIdsOf(runId, loggedBefore);
      const after = logIdsOf(runId, loggedAfter);
      const completed = completedBefore.get(runId) ?? [];
      // The kill landed where intended: the parked side effect happened, its activity did not complete.
      expect(before).toContain(parkedAt);
      expect(completed).not.toContain(parkedAt);
      // Completed activities are not executed again; the one in flight is (it was never acknowledged).
      expect(
        after.filter((id) => completed.includes(id)),
        `${runId}: completed steps executed again`,
      ).toEqual([]);
      expect(after).toContain(parkedAt);
      const all = [...before, ...after];
      expect(new Set(all)).toEqual(new Set(CRASH_MARKS));
      for (const mark of CRASH_MARKS) {
        const times = all.filter((id) => id === mark).length;
        // Only the parked step (in flight at the kill) runs twice; every other side effect once.
        expect(times, `${runId}: ${mark}`).toBe(mark === parkedAt ? 2 : 1);
      }
    });

    for (const runId of runIds) {
      const run = await store.getRun(runId);
      expect(run?.status, JSON.stringify(run?.error)).toBe('completed');
      expect(run?.output).toEqual(reference?.output as Json);
      const result = await client.workflow.getHandle(runId).result();
      expect(result).toEqual(reference?.output);
      for (const id of [runId, childRunId(runId, 'sub')]) {
        const events = await store.readEvents(id);
        expect(duplicateKeys(events), id).toEqual([]);
        expect(events.filter((event) => event.type === 'run.completed')).toHaveLength(1);
      }
    }
  });
});
