/**
 * Following a run on an external engine (Temporal, Inngest) from the CLI. The engine's side
 * writes events and approval records into the store; a worker or function this command hosts
 * writes through this process's store, whose feed wakes the follower at once, and a worker in
 * another process is read every 100 ms at the latest. Approvals are recorded in the store before
 * their event (so `weft approve` and the parked report find them); `--approve` presets decide
 * them through `backend.decide`, and anything else parks the command.
 */

import { type RunStore, waitForEvents } from '@weft/adapters/store';
import { isFinalStatus, type RunEvent } from '@weft/engine';
import type { CliDecider } from './approvals.ts';
import { BACKEND_LABEL, type CliBackend } from './external.ts';
import { drain, EXIT, stderr } from './output.ts';
import { ProgressRenderer } from './progress.ts';
import { reportOutcome } from './report.ts';
import { getRunOrFail, runTree, shellQuote, treeLabels } from './tree.ts';

/** The longest the follower waits before reading the store again (a worker in another process). */
const BACKSTOP_MS = 100;
/** With an approval nobody here can decide, the command parks once the run is this quiet. */
const PARK_QUIET_MS = 1_500;

/**
 * Follows an external run tree through the store until the root ends or parks, rendering
 * progress; decides approvals from `decider` presets. Returns the exit code.
 */
export async function followExternalRun(
  store: RunStore,
  backend: CliBackend,
  rootRunId: string,
  options: { json: boolean; decider?: CliDecider; fromCurrent?: boolean },
): Promise<number> {
  const runs = await runTree(store, await getRunOrFail(store, rootRunId));
  const renderer = new ProgressRenderer(stderr, treeLabels(runs));
  const after = new Map<string, number>();
  for (const run of runs) {
    renderer.setFixtures(run.id, run.fixtures);
    let seq = 0;
    if (options.fromCurrent) for (const event of await store.readEvents(run.id)) seq = event.seq;
    after.set(run.id, seq);
  }
  /** Approvals requested and not resolved, by `${runId}|${stepId}`; true once a preset decided it. */
  const pending = new Map<string, boolean>();
  let lastEventAt = Date.now();
  const onInterrupt = () => {
    renderer.end();
    stderr.write(
      `\n${stderr.style(['bold', 'yellow'], 'interrupted')}: run ${rootRunId} goes on in ${BACKEND_LABEL[backend.name]}.\n` +
        `  stop it: weft runs cancel ${shellQuote(rootRunId)}\n`,
    );
    void drain().then(() => process.exit(EXIT.interrupted));
  };
  process.once('SIGINT', onInterrupt);
  try {
    for (;;) {
      let seen = false;
      for (const [runId, seq] of [...after]) {
        const events = await store.readEvents(runId, seq);
        for (const event of events) {
          seen = true;
          after.set(runId, event.seq);
          renderer.handle(event);
          await onEvent(event);
        }
      }
      if (seen) lastEventAt = Date.now();
      const root = await store.getRun(rootRunId);
      if (!root || isFinalStatus(root.status)) break;
      const undecided = [...pending.values()].some((decided) => !decided);
      if (undecided && Date.now() - lastEventAt >= PARK_QUIET_MS) break;
      await waitForEvents(store, new Set(after.keys()), BACKSTOP_MS);
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    renderer.end();
  }
  return reportOutcome(store, rootRunId, { json: options.json });

  async function onEvent(event: RunEvent): Promise<void> {
    if (event.type === 'child.started') {
      if (!after.has(event.childRunId)) after.set(event.childRunId, 0);
      return;
    }
    const key = `${event.runId}|${'stepId' in event ? event.stepId : ''}`;
    if (event.type === 'approval.requested') {
      // The engine's side recorded the request before it stored this event.
      const record = await store.getApproval(event.runId, event.stepId);
      if (record && record.status !== 'pending') {
        pending.set(key, true);
        return;
      }
      const preset = options.decider
        ? await options.decider.decide({ runId: event.runId, stepId: event.stepId, prompt: event.prompt } as never)
        : undefined;
      if (preset) {
        const by = preset.by ?? null;
        const comment = 'comment' in preset ? (preset.comment ?? null) : null;
        await store.resolveApproval(event.runId, event.stepId, {
          status: preset.approved ? 'approved' : 'rejected',
          by,
          comment,
          at: Date.now(),
        });
        await backend.decide(event.runId, { stepId: event.stepId, approved: preset.approved, by, comment });
        pending.set(key, true);
      } else {
        pending.set(key, false);
      }
      return;
    }
    if (event.type === 'approval.resolved') pending.delete(key);
  }
}
