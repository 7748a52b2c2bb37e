/**
 * Following a run tree from the CLI, whatever executes it: the in-process runner of this
 * command, a Temporal worker or the Inngest function, here or in another process. Every engine
 * writes the run's events into the store, so the follower reads them there through the store's
 * `RunFollower` (woken by its feed, which hears other processes' commits too). Child runs join
 * as their `child.started` events arrive.
 *
 * The follower stops when the root run ends, or parks:
 * - in-process: once this command's executions have settled with the run not ended (it waits
 *   for an approval nobody here could decide, or another live process holds it);
 * - on an external engine: once an approval nobody here can decide is pending and the run has
 *   been quiet for 1.5 s. `--approve` presets decide external approvals through the run
 *   service; in-process ones are asked inline by the runner (the decider it was built with).
 */
import type { RunService } from '@weft/adapters/service';
import { ApprovalClosedError } from '@weft/adapters/service';
import { RunFollower, type RunStore, waitForEnd } from '@weft/adapters/store';
import { isFinalStatus, isRunEndEvent, type Json, type RunEvent } from '@weft/engine';
import type { CliDecider } from './approvals.ts';
import { BACKEND_LABEL, isExternalBackend } from './external.ts';
import { CliError, drain, EXIT, stderr } from './output.ts';
import { ProgressRenderer } from './progress.ts';
import { reportOutcome } from './report.ts';
import { getRunOrFail, runTree, shellQuote, treeLabels } from './tree.ts';

/** How often the follower looks at the root run's status while nothing is committed. */
const STATUS_EVERY_MS = 500;
/** With an approval nobody here can decide, an external run's command parks once it is this quiet. */
const PARK_QUIET_MS = 1_500;

export interface FollowOptions {
  json: boolean;
  /** Decides approvals of external runs (in-process ones are asked inline). */
  decider?: CliDecider;
  /** Where to start per run (`bookmarks`, taken before a decision or a resume); default: the first event. */
  after?: ReadonlyMap<string, number>;
  /** Resolves when this command's in-process executions have all ended or parked. */
  settled?: Promise<void>;
  /** Why this command could not execute the run (another live process holds it), once settled. */
  busy?: () => string | undefined;
  /** More fields for the `--json` line. */
  extra?: Record<string, Json>;
}

/** Another live process executes the run. */
export class BusyError extends CliError {
  constructor(message: string) {
    super(
      `${message.replace(/; try again.*$/, '')}.\n  It is running in another live process; try again when that one ends (or its 30 s lease runs out).`,
    );
  }
}

/** The last stored event of each run in the tree: follow from here to show only what comes next. */
export async function bookmarks(store: RunStore, rootRunId: string): Promise<Map<string, number>> {
  const marks = new Map<string, number>();
  for (const run of await runTree(store, await getRunOrFail(store, rootRunId)))
    marks.set(run.id, (await store.readEvents(run.id)).at(-1)?.seq ?? 0);
  return marks;
}

export async function followRunTree(service: RunService, rootRunId: string, options: FollowOptions): Promise<number> {
  const store = service.store;
  const root = await getRunOrFail(store, rootRunId);
  const external = isExternalBackend(root.backend) ? root.backend : undefined;
  const runs = await runTree(store, root);
  const renderer = new ProgressRenderer(stderr, treeLabels(runs));
  for (const run of runs) renderer.setFixtures(run.id, run.fixtures);
  const follower = new RunFollower(
    store,
    runs.map((run) => [run.id, options.after?.get(run.id) ?? 0] as const),
  );
  let settled = options.settled === undefined;
  void options.settled?.then(() => {
    settled = true;
  });
  /** Approvals requested and not resolved, by `${runId}|${stepId}`; true once a preset decided it. */
  const pending = new Map<string, boolean>();
  let lastEventAt = Date.now();
  const onInterrupt = () => {
    renderer.end();
    const id = shellQuote(rootRunId);
    stderr.write(
      external
        ? `\n${stderr.style(['bold', 'yellow'], 'interrupted')}: run ${rootRunId} goes on in ${BACKEND_LABEL[external]}.\n` +
            `  stop it: weft runs cancel ${id}\n`
        : `\n${stderr.style(['bold', 'yellow'], 'interrupted')}: run ${rootRunId} is kept as it was.\n` +
            `  continue it: weft runs resume ${id}\n  stop it:     weft runs cancel ${id}\n`,
    );
    void drain().then(() => process.exit(EXIT.interrupted));
  };
  process.once('SIGINT', onInterrupt);
  try {
    for (;;) {
      // Taken before reading: what an execution committed before it settled is shown.
      const wasSettled = settled;
      const events = await follower.next({
        timeoutMs: external ? Math.min(STATUS_EVERY_MS, PARK_QUIET_MS) : STATUS_EVERY_MS,
        ...(external || settled || !options.settled ? {} : { wake: options.settled }),
      });
      for (const event of events ?? []) {
        lastEventAt = Date.now();
        renderer.handle(event);
        await onEvent(event);
      }
      // The root's end is committed; its row's final status follows within moments.
      if (events?.some((event) => event.runId === rootRunId && isRunEndEvent(event))) {
        await waitForEnd(store, rootRunId, 5_000);
        break;
      }
      if (events && events.length > 0) continue;
      const current = await store.getRun(rootRunId);
      if (!current || isFinalStatus(current.status)) {
        // Its end is committed: show whatever is left before the report.
        for (const event of (await follower.next({ timeoutMs: 0 })) ?? []) renderer.handle(event);
        break;
      }
      if (!external && wasSettled) {
        const busy = options.busy?.();
        if (busy) throw new BusyError(busy);
        break;
      }
      const undecided = [...pending.values()].some((decided) => !decided);
      if (external && undecided && Date.now() - lastEventAt >= PARK_QUIET_MS) break;
    }
  } finally {
    follower.close();
    process.off('SIGINT', onInterrupt);
    renderer.end();
  }
  return reportOutcome(store, rootRunId, { json: options.json, ...(options.extra ? { extra: options.extra } : {}) });

  async function onEvent(event: RunEvent): Promise<void> {
    if (event.type === 'child.started') {
      if (!follower.has(event.childRunId)) {
        follower.add(event.childRunId);
        renderer.setFixtures(event.childRunId, (await store.getRun(event.childRunId))?.fixtures ?? null);
      }
      return;
    }
    if (!external) return;
    const key = `${event.runId}|${'stepId' in event ? event.stepId : ''}`;
    if (event.type === 'approval.requested') {
      pending.set(key, await decidePreset(store, event));
      return;
    }
    if (event.type === 'approval.resolved') pending.delete(key);
  }

  /** Decides an external run's approval from the presets; whether it is decided (by anyone). */
  async function decidePreset(store: RunStore, event: Extract<RunEvent, { type: 'approval.requested' }>) {
    // The engine's side recorded the request before it stored this event.
    const record = await store.getApproval(event.runId, event.stepId);
    if (record && record.status !== 'pending') return true;
    const preset = await options.decider?.decide({ runId: event.runId, stepId: event.stepId, prompt: event.prompt });
    if (!preset) return false;
    try {
      await service.decide(event.runId, event.stepId, {
        approved: preset.approved,
        by: preset.by ?? null,
        comment: 'comment' in preset ? (preset.comment ?? null) : null,
      });
    } catch (error) {
      if (!(error instanceof ApprovalClosedError)) throw error;
    }
    return true;
  }
}
