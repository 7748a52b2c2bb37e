/**
 * How an external engine's run (Temporal, Inngest) writes what it did into Weft's store: the
 * events (deduped by eventKey, so a replay's re-emits are harmless) and the approval records
 * and `waiting` status that `approvals.list`/`decide` and the run list read. The in-process
 * runner keeps these itself; for an external run this is the one place that does.
 */
import type { RunEventInput } from '@weft/engine';
import type { RunStore } from './types.ts';

export async function reportRunEvents(store: RunStore, runId: string, events: RunEventInput[]): Promise<void> {
  if (events.length === 0) return;
  // Approval records first: whoever reads `approval.requested` finds the pending record.
  let parked: boolean | undefined;
  for (const event of events) {
    if (event.type === 'approval.requested') {
      const at = Date.now();
      await store.requestApproval({
        runId,
        stepId: event.stepId,
        prompt: event.prompt,
        deadline: event.timeoutMs === undefined ? null : at + event.timeoutMs,
        now: at,
      });
      parked = true;
    } else if (event.type === 'approval.resolved') {
      // Decided through Weft: already recorded there (this is a no-op); timed out or decided
      // straight at the engine (a signal, an event): recorded here.
      await store.resolveApproval(runId, event.stepId, {
        status: event.timedOut ? 'timed-out' : event.approved ? 'approved' : 'rejected',
        by: event.by,
        comment: event.comment,
        at: Date.now(),
      });
      parked = false;
    }
  }
  await store.commit([{ runId, journal: [], events }]);
  if (parked === undefined) return;
  const run = await store.getRun(runId);
  if (!run || (run.status !== 'running' && run.status !== 'waiting')) return;
  const pending = await store.listApprovals({ runId, status: 'pending' });
  const status = pending.length > 0 ? 'waiting' : 'running';
  if (run.status !== status) await store.updateRun(runId, { status });
}
