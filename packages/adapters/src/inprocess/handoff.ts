/**
 * A run's hand-off from the in-process runner to a durable engine (flow or run `handoff`; see
 * DESIGN.md, "Replay, fork and hand-off"). The host stopped before the first live call at the
 * hand-off point (host.ts `#handOffIfAt`); what the run did so far becomes the seed the target
 * engine starts from, so nothing runs twice. It stays one run: same id, row and event log.
 *
 * The steps, each safe to repeat after a crash:
 * 1. one commit: the seed (under `@seed:` ids) and `run.handed-off` (keyed once per run).
 *    A crash before it leaves an in-process run: recovery replays it and hands off again.
 * 2. this runner lets go of the run (an engine that claims runs, Inngest's function, must find
 *    it free), then the row's `backend` becomes the target: from here the in-process runner
 *    leaves it alone. A crash between the two leaves an unowned in-process run: as in 1.
 * 3. the target's start, keyed by the run id (Temporal workflow id, Inngest event id): a second
 *    start is a no-op. An engine that cannot be reached is tried again with backoff while the
 *    run shows it waits for it (service/engine-starts.ts). A crash before the engine accepted it
 *    is repaired at start-up by `RunService.recoverHandOffs`, which starts again every open run
 *    handed off to an engine.
 * The crash windows of 1–3 have test failpoints (backends/failpoint.ts).
 */
import { type Fixtures, type Flow, flowSchema } from '@weft/engine';
import { failpoint } from '../backends/failpoint.ts';
import type { RunHandOver } from '../backends/run-backend.ts';
import { APPROVAL_KIND, recordedResults, seedEntries } from '../backends/seed.ts';
import type { ApprovalRecord, JournalEntry, RunHandoff, RunRecord, RunStore } from '../store/types.ts';
import type { GroupCommitter } from './group-commit.ts';
import { outcomeOf, type RunOutcome } from './options.ts';

/** Starts a handed-off run on its target engine (the composition root binds it to the service's backends). */
export type HandOffStart = (to: RunHandoff['to'], run: RunHandOver) => Promise<void>;

/**
 * What a target engine's host answers from a seed. A sleep is answered with its wake-up time:
 * the engine sleeps only what is left of it (seed.ts `seedSleepUntil`).
 */
const SEEDABLE_KINDS: ReadonlySet<string> = new Set(['model-turn', 'tool', 'code', 'http', 'spawn', 'sleep']);

/** This process cannot start the engine a run hands off to: the run fails with this. */
export class HandOffUnavailableError extends Error {
  constructor(runId: string, handoff: RunHandoff, checkpoint: string) {
    super(
      `run ${runId} hands off to ${handoff.to} at ${checkpoint}, but this runner has no ${handoff.to} backend to hand it to`,
    );
    this.name = 'HandOffUnavailableError';
  }
}

/**
 * The seed a handed-off run continues from: every call it made (its own results, and what its
 * own seed answered, when it is a replay) — model turns, tools, code, http, child runs that ended
 * here, sleeps with their wake-up time — and every approval decided here. Read from the store alone, so a start-up that repeats
 * a hand-off builds the same seed.
 */
export async function handOffSeed(store: RunStore, runId: string): Promise<JournalEntry[]> {
  const calls = recordedResults(await store.loadJournal(runId)).filter((entry) => SEEDABLE_KINDS.has(entry.kind));
  const decided = (await store.listApprovals({ runId })).filter((approval) => approval.status !== 'pending');
  return [...calls, ...decided.map(decisionEntry)];
}

/** The hand-over of a recorded run to its engine, with its seed. */
export function handOverOf(run: RunRecord, seed: readonly JournalEntry[]): RunHandOver {
  return {
    runId: run.id,
    flow: flowSchema.parse(run.flow) as Flow,
    input: run.input,
    ...(run.fixtures ? { fixtures: run.fixtures as Fixtures } : {}),
    ...(seed.length > 0 ? { seed } : {}),
  };
}

/**
 * Continues `run` on `handoff.to` from `checkpoint`; see the file comment for the order. A start
 * that fails throws, leaving the run (its row naming the target) to RunService.recoverHandOffs.
 */
export async function handOffRun(
  store: RunStore,
  committer: GroupCommitter,
  start: HandOffStart,
  owner: string,
  run: RunRecord,
  handoff: RunHandoff,
  checkpoint: string,
): Promise<RunOutcome> {
  // Everything the execution journaled and emitted is in before the seed is read from the store.
  await committer.flush();
  const seed = await handOffSeed(store, run.id);
  await store.commit([
    {
      runId: run.id,
      journal: seedEntries(seed),
      events: [{ type: 'run.handed-off', from: 'inprocess', to: handoff.to, checkpoint }],
    },
  ]);
  failpoint('handoff-after-commit');
  await store.releaseRun(run.id, owner);
  await store.updateRun(run.id, { backend: handoff.to });
  failpoint('handoff-before-start');
  await start(handoff.to, handOverOf(run, seed));
  return { ...outcomeOf(run), status: 'running' };
}

/** An approval decided in-process as a seed entry (the shape replay-plan.ts gives decisions). */
function decisionEntry(approval: ApprovalRecord): JournalEntry {
  return {
    stepId: approval.stepId,
    kind: APPROVAL_KIND,
    inputHash: APPROVAL_KIND,
    status: 'completed',
    output: {
      approved: approval.status === 'approved',
      by: approval.decidedBy,
      comment: approval.comment,
      timedOut: approval.status === 'timed-out',
      at: new Date(approval.decidedAt ?? approval.requestedAt).toISOString(),
    },
    error: null,
  };
}
