/**
 * What the run view reads of a run, through the API a browser uses (`runs.eventsPage`,
 * `runs.stateAt`, `runs.costs`), checked for a run that waited at an approval: the same
 * debugger on every backend. The timeline is the engine's `timelineOf`, as the web draws it.
 */
import { RUN_BAR_ID, type RunEvent, timelineOf } from '@weft/engine';
import { expect } from 'vitest';
import type { client } from './serve-process.ts';

export async function expectRunViewOfApproval(api: ReturnType<typeof client>, runId: string, approvalStep: string) {
  const events: RunEvent[] = [];
  let after = 0;
  for (;;) {
    const page = await api.runs.eventsPage.query({ runId, after, limit: 50 });
    events.push(...(page.events as RunEvent[]));
    if (page.nextAfter === null) break;
    after = page.nextAfter;
  }
  // Paged without a gap or a repeat: each page starts after the last seq of the one before.
  const seqs = events.map((event) => event.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  expect(new Set(seqs).size).toBe(seqs.length);
  expect(events.at(-1)?.type).toBe('run.completed');
  const bars = timelineOf(events);
  expect(bars.find((bar) => bar.id === RUN_BAR_ID)?.status).toBe('completed');
  const gate = bars.find((bar) => bar.stepId === approvalStep);
  expect(gate?.status).toBe('completed');
  const waits = gate?.segments.filter((segment) => segment.kind === 'wait' && segment.reason === 'approval') ?? [];
  expect(waits).toHaveLength(1);
  expect(waits[0]?.end).not.toBeNull();
  // Scrubbed to the request, the run is waiting there; at the end it has completed.
  const requested = events.find((event) => event.type === 'approval.requested' && event.stepId === approvalStep);
  if (!requested) throw new Error(`no approval.requested for ${approvalStep}`);
  const then = await api.runs.stateAt.query({ runId, seq: requested.seq });
  expect(then.status).toBe('waiting');
  expect(then.steps[approvalStep]?.status).toBe('waiting');
  expect((await api.runs.stateAt.query({ runId, seq: events.at(-1)?.seq ?? 0 })).status).toBe('completed');
  const costs = await api.runs.costs.query({ runId });
  expect(costs.total.unpriced).toEqual([]);
}
