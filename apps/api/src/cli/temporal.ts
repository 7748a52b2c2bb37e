/**
 * Running flows on Temporal from the CLI: the client (TEMPORAL_ADDRESS), an in-process worker
 * for the duration of a command unless WEFT_TEMPORAL_WORKER=external says one runs elsewhere,
 * and progress rendered from the store's events (Temporal activities write them there, so the
 * CLI polls `readEvents` instead of listening to a runner). Approvals the workflow asks for are
 * recorded in the store by its activity (so `weft approve` and the parked report find them) and
 * decided by `--approve` presets through the workflow's signal; anything else parks the command.
 */

import { createExecutorRegistry } from '@weft/adapters/executors';
import type { FlowSource } from '@weft/adapters/inprocess';
import type { RunStore } from '@weft/adapters/store';
import {
  approveTemporalRun,
  connectTemporal,
  openTemporalBackend,
  startTemporalWorker,
  type TemporalBackend,
  type TemporalWorkerHandle,
} from '@weft/adapters/temporal';
import type { RunEvent } from '@weft/engine';
import type { CliDecider } from './approvals.ts';
import { CliError, drain, EXIT, stderr } from './output.ts';
import { ProgressRenderer } from './progress.ts';
import { reportOutcome } from './report.ts';
import { getRunOrFail, runTree, shellQuote, treeLabels } from './tree.ts';

type TemporalClient = Awaited<ReturnType<typeof connectTemporal>>;

export function temporalAddress(env: Record<string, string | undefined> = process.env): string | undefined {
  return env.TEMPORAL_ADDRESS || undefined;
}

export interface TemporalSession {
  client: TemporalClient;
  worker: TemporalWorkerHandle | undefined;
  close(): Promise<void>;
}

/** Connects to TEMPORAL_ADDRESS without a worker: for steering runs that workers elsewhere execute. */
export async function connectTemporalBackend(store: RunStore): Promise<TemporalBackend> {
  const address = temporalAddress();
  if (!address) throw new CliError('TEMPORAL_ADDRESS is not set (start a server with: weft backend up temporal)');
  try {
    return await openTemporalBackend({ address, store });
  } catch (error) {
    throw new CliError(`cannot reach Temporal at ${address}: ${error instanceof Error ? error.message : error}`);
  }
}

/** Connects to TEMPORAL_ADDRESS and, unless a worker runs elsewhere, starts one here. */
export async function openTemporal(options: { store: RunStore; flows: FlowSource }): Promise<TemporalSession> {
  const address = temporalAddress();
  if (!address) throw new CliError('TEMPORAL_ADDRESS is not set (start a server with: weft backend up temporal)');
  let client: TemporalClient;
  try {
    client = await connectTemporal({ address });
  } catch (error) {
    throw new CliError(`cannot reach Temporal at ${address}: ${error instanceof Error ? error.message : error}`);
  }
  let worker: TemporalWorkerHandle | undefined;
  if (process.env.WEFT_TEMPORAL_WORKER !== 'external') {
    stderr.write(stderr.style('dim', `  starting a Temporal worker in this process (${address}) for this command\n`));
    try {
      worker = await startTemporalWorker({
        address,
        store: options.store,
        executors: createExecutorRegistry(),
        flows: options.flows,
      });
    } catch (error) {
      await client.connection.close().catch(() => undefined);
      throw error;
    }
  }
  return {
    client,
    worker,
    async close() {
      await worker?.shutdown().catch(() => undefined);
      await client.connection.close().catch(() => undefined);
    },
  };
}

const POLL_MS = 100;
/** With an approval nobody here can decide, the command parks once the run is this quiet. */
const PARK_QUIET_MS = 1_500;
const FINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * Follows a Temporal run tree through the store until the root ends or parks, rendering
 * progress; decides approvals from `decider` presets. Returns the exit code.
 */
export async function followTemporalRun(
  store: RunStore,
  client: TemporalClient,
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
      `\n${stderr.style(['bold', 'yellow'], 'interrupted')}: run ${rootRunId} goes on in Temporal.\n` +
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
      if (!root || FINAL.has(root.status)) break;
      const undecided = [...pending.values()].some((decided) => !decided);
      if (undecided && Date.now() - lastEventAt >= PARK_QUIET_MS) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
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
      // The workflow's activity recorded the request before it stored this event.
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
        await approveTemporalRun(client, event.runId, { stepId: event.stepId, approved: preset.approved, by, comment });
        pending.set(key, true);
      } else {
        pending.set(key, false);
      }
      return;
    }
    if (event.type === 'approval.resolved') pending.delete(key);
  }
}
