/**
 * Who executes a run. A process claims a run with a lease it renews while it works. When a
 * process dies (SIGKILL, power), another can take the run over as soon as the lease ends, or at
 * once when the owner was on this machine and its pid is gone.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Flow, Json } from '@weft/engine';
import type { RunRecord, RunStore } from '../store/types.ts';
import { RunBusyError, UnknownRunError } from './errors.ts';

export const LEASE_MS = 30_000;
export const RENEW_EVERY_MS = 10_000;

export function newOwnerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** True when `owner` names a process on this machine that no longer exists. */
export function ownerIsDeadHere(owner: string): boolean {
  const [host, pidText] = owner.split(':');
  if (host !== hostname()) return false;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Claims the run for `owner` (taking it over from a dead owner on this machine); the run as
 * claimed. Given the flow the run was created with, the record holds that flow instead of its
 * stored text: an execution keeps its record until it ends, and the store's record (decoding
 * the flow on first read) is a dictionary-mode object holding the text as well, ~2 KB a run.
 */
export async function claimRun(store: RunStore, owner: string, runId: string, flow?: Flow): Promise<RunRecord> {
  const now = Date.now();
  const claim = { owner, leaseUntil: now + LEASE_MS, now };
  // Claimed first and read after: a free run (the usual case) costs one read, not two.
  if (!(await store.claimRun(runId, claim))) {
    const run = await store.getRun(runId);
    if (!run) throw new UnknownRunError(runId);
    const takeOverFrom = run.owner && ownerIsDeadHere(run.owner) ? run.owner : undefined;
    if (!takeOverFrom || !(await store.claimRun(runId, { ...claim, takeOverFrom })))
      throw new RunBusyError(runId, run.owner);
  }
  const current = await store.getRun(runId);
  if (!current) throw new UnknownRunError(runId);
  return flow === undefined ? current : withFlow(current, flow);
}

/** A plain copy of `run` holding `flow` (its stored text is not decoded). */
function withFlow(run: RunRecord, flow: Flow): RunRecord {
  return {
    id: run.id,
    flowId: run.flowId,
    flowVersion: run.flowVersion,
    // Validated from a JSON document: JSON still, as the store would decode it.
    flow: flow as unknown as Json,
    input: run.input,
    status: run.status,
    output: run.output,
    error: run.error,
    backend: run.backend,
    parentRunId: run.parentRunId,
    parentStepId: run.parentStepId,
    replayOf: run.replayOf,
    handoff: run.handoff,
    fixtures: run.fixtures,
    owner: run.owner,
    leaseUntil: run.leaseUntil,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    endedAt: run.endedAt,
    tokens: run.tokens,
  };
}
