/**
 * What a starting process must pick up, and what a parked run is waiting for. A wake-up can
 * be missed (a decision arrives while the run is still executing, a process dies between
 * recording a decision and resuming the run), so both a run that just parked and a starting
 * process look again. A spurious wake-up costs one replay that parks again; a missed one
 * strands the run, so every check here errs towards waking.
 */
import { isFinalStatus } from '@weft/engine';
import { childRunId } from '../backends/children.ts';
import type { RunRecord, RunStore } from '../store/types.ts';
import { ownerIsDeadHere } from './ownership.ts';

export interface Waiting {
  stepId: string;
  reason: 'approval' | 'child run';
}

/** True when something a just-parked run waits for is already there: it should run again now. */
export async function canProceed(store: RunStore, runId: string, waiting: readonly Waiting[]): Promise<boolean> {
  const now = Date.now();
  for (const wait of waiting) {
    if (wait.reason === 'approval') {
      const approval = await store.getApproval(runId, wait.stepId);
      if (approval && (approval.status !== 'pending' || (approval.deadline !== null && approval.deadline <= now)))
        return true;
    } else {
      const child = await store.getRun(childRunId(runId, wait.stepId));
      if (child && isFinalStatus(child.status)) return true;
    }
  }
  return false;
}

/** Runs a starting process should execute, oldest concern first; see `InProcessRunner.recover`. */
export async function recoverableRuns(store: RunStore): Promise<string[]> {
  const now = Date.now();
  const ids = new Set<string>();
  // Runs on Temporal or Inngest share the store; their engine, not this process, resumes them.
  const mine = { backend: 'inprocess' } as const;
  for (const run of await store.listRuns({ ...mine, status: ['running'] })) {
    if (!abandoned(run, now)) continue;
    if (run.parentRunId) {
      // A running parent resumes its children itself (it executes them inline); a waiting one
      // does not, so an orphaned child runs on its own and its end wakes the parent.
      const parent = await store.getRun(run.parentRunId);
      if (parent?.status === 'running') continue;
    }
    ids.add(run.id);
  }
  for (const approval of await store.listApprovals({ status: 'pending' })) {
    if (approval.deadline === null || approval.deadline > now) continue;
    if ((await store.getRun(approval.runId))?.backend === 'inprocess') ids.add(approval.runId);
  }
  for (const run of await store.listRuns({ ...mine, status: ['waiting'] })) {
    if (await missedWakeUp(store, run)) ids.add(run.id);
  }
  return [...ids];
}

function abandoned(run: RunRecord, now: number): boolean {
  if (!run.owner) return true; // released without finishing: a closed runner
  return ownerIsDeadHere(run.owner) || (run.leaseUntil ?? 0) <= now;
}

/**
 * A waiting run whose child has ended without the parent recording it, or with a decision
 * made after it parked (parking sets `updatedAt`).
 */
async function missedWakeUp(store: RunStore, run: RunRecord): Promise<boolean> {
  const children = (await store.listRuns({ parentRunId: run.id })).filter((child) => isFinalStatus(child.status));
  if (children.length > 0) {
    const recorded = new Set((await store.loadJournal(run.id)).map((entry) => entry.stepId));
    if (children.some((child) => child.parentStepId !== null && !recorded.has(child.parentStepId))) return true;
  }
  const approvals = await store.listApprovals({ runId: run.id });
  return approvals.some((approval) => approval.decidedAt !== null && approval.decidedAt >= run.updatedAt);
}
