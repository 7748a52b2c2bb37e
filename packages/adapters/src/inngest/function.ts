/**
 * The one generic Inngest function that runs every Weft flow: triggered by the run event, it
 * loads the run (pinned flow snapshot, input, fixtures) from Weft's store and runs the
 * engine's interpreter over the Inngest step host. Retries are the steps' own (see host.ts);
 * Inngest's budget sits above them so a lost request never becomes a step failure.
 */

import { type Fixtures, type Flow, interpret, type Json, toErrorInfo } from '@weft/engine';
import { type Inngest, type InngestFunction, NonRetriableError } from 'inngest';
import type { FlowSource } from '../backends/flow-source.ts';
import { finishExternalRun } from '../backends/run-rows.ts';
import { splitJournal } from '../backends/seed.ts';
import type { ExecutorRegistry, HostTool } from '../executors/index.ts';
import { hostToolSpecs } from '../executors/tool.ts';
import type { JournalEntry, RunRecord, RunStore } from '../store/types.ts';
import { type ChildResult, inngestHost } from './host.ts';
import { RunReporter } from './reporter.ts';
import { CANCEL_EVENT, FUNCTION_ID, RUN_EVENT, type RunEventData } from './types.ts';

/** Inngest's most: attempts a step may take beyond its own retries (lost requests, restarts). */
const INNGEST_RETRIES = 20;

export interface WeftFunctionDeps {
  store: RunStore;
  executors: ExecutorRegistry;
  flows: FlowSource;
  /** Tools registered by the host application (their code runs in this process). */
  tools?: Record<string, HostTool>;
}

/** A run's row never changes while it runs: each invocation of a step needs it, so keep a few. */
const runs = new Map<string, RunRecord>();
async function loadRun(store: RunStore, runId: string): Promise<RunRecord | undefined> {
  const cached = runs.get(runId);
  if (cached) return cached;
  const run = await store.getRun(runId);
  if (run) {
    if (runs.size >= 500) runs.delete(runs.keys().next().value as string);
    runs.set(runId, run);
  }
  return run;
}

/** Claims already made in this process, so a replay does not ask the store again. */
const claimed = new Map<string, string>();
async function claimForInngestRun(store: RunStore, runId: string, inngestRunId: string): Promise<boolean> {
  const owner = `inngest:${inngestRunId}`;
  if (claimed.get(runId) === owner) return true;
  // No lease end: the claim ties the Weft run to one Inngest run for its whole life.
  const won = await store.claimRun(runId, { owner, leaseUntil: Number.MAX_SAFE_INTEGER, now: Date.now() });
  if (won) {
    if (claimed.size >= 2_000) claimed.delete(claimed.keys().next().value as string);
    claimed.set(runId, owner);
  }
  return won;
}

export function createWeftFunction(inngest: Inngest, deps: WeftFunctionDeps) {
  const hostTools = hostToolSpecs(deps.tools ?? {});
  const weftFlow: InngestFunction.Any = inngest.createFunction(
    {
      id: FUNCTION_ID,
      name: 'Weft flow',
      triggers: [{ event: RUN_EVENT }],
      retries: INNGEST_RETRIES,
      cancelOn: [{ event: CANCEL_EVENT, if: 'async.data.runId == event.data.runId' }],
    },
    async ({ event, step, attempt, runId: inngestRunId }): Promise<Json | ChildResult | null> => {
      const data = event.data as RunEventData;
      const run = await loadRun(deps.store, data.runId);
      if (!run) throw new NonRetriableError(`run '${data.runId}' is not in this server's Weft store`);
      // Several apps can serve this function for one store (an API and a CLI synced at different
      // URLs): each starts its own Inngest run for the same event. The first claims the Weft
      // run for good; any other ends at once without touching it.
      if (!(await claimForInngestRun(deps.store, run.id, inngestRunId))) return null;
      // The seed (what RunService journaled before the start) is read once, in a step, so every
      // later invocation sees the same one. A run started without one skips the step: a round
      // trip to the Inngest server less before the first call.
      const seeded =
        data.seeded === false
          ? []
          : ((await step.run('@weft:seed', async () => [
              ...splitJournal(await deps.store.loadJournal(run.id)).seed.values(),
            ])) as unknown as JournalEntry[]);
      const seed = new Map(seeded.map((entry) => [entry.stepId, entry]));
      const flow = run.flow as unknown as Flow;
      const reporter = new RunReporter(deps.store, run.id);
      const host = inngestHost({
        step,
        attempt,
        reporter,
        store: deps.store,
        executors: deps.executors,
        flows: deps.flows,
        run: { id: run.id, fixtures: (run.fixtures as Fixtures | null) ?? null, depth: data.depth ?? 0 },
        seed,
        self: () => weftFlow,
      });
      host.emit({
        type: 'run.started',
        flowId: run.flowId,
        flowVersion: run.flowVersion,
        input: run.input,
        backend: 'inngest',
        ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
      });
      let output: Json;
      try {
        output = await interpret(flow, run.input, host, {
          ...(run.fixtures ? { fixtures: run.fixtures as Fixtures } : {}),
          hostTools,
        });
      } catch (caught) {
        const error = toErrorInfo(caught);
        // Recorded by the invocation that ends the run, not in a step of its own (a round trip to
        // the Inngest server less): the writes are idempotent (the store dedupes `run.failed` by
        // key), and a failed write fails the invocation, which Inngest retries.
        await reporter.flush();
        await finishExternalRun(deps.store, run.id, { status: 'failed', error }, [{ type: 'run.failed', error }]);
        reporter.forget();
        // A child's failure goes back to its parent as data, name and message intact.
        if (run.parentRunId) return { weftChild: 'failed', error };
        throw new NonRetriableError(error.message, { cause: error });
      }
      // As above: no step of its own, idempotent, retried by Inngest if the write fails.
      await reporter.flush();
      await finishExternalRun(deps.store, run.id, { status: 'completed', output }, [{ type: 'run.completed', output }]);
      reporter.forget();
      return run.parentRunId ? { weftChild: 'completed', output } : output;
    },
  );
  return weftFlow;
}
