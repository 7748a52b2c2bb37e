/**
 * Who executes a run. A process claims a run with a lease it renews while it works. When a
 * process dies (SIGKILL, power), another can take the run over as soon as the lease ends, or at
 * once when the owner was on this machine and its pid is gone.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
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

/** Claims the run for `owner` (taking it over from a dead owner on this machine); the run as claimed. */
export async function claimRun(store: RunStore, owner: string, runId: string): Promise<RunRecord> {
  const run = await store.getRun(runId);
  if (!run) throw new UnknownRunError(runId);
  const now = Date.now();
  const claim = { owner, leaseUntil: now + LEASE_MS, now };
  const takeOverFrom = run.owner && ownerIsDeadHere(run.owner) ? run.owner : undefined;
  const claimed = await store.claimRun(runId, takeOverFrom ? { ...claim, takeOverFrom } : claim);
  if (!claimed) throw new RunBusyError(runId, run.owner);
  return (await store.getRun(runId)) ?? run;
}
