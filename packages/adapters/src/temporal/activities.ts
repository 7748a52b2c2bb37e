/**
 * The activities the generic workflow calls, bound to one worker's store, executors and flows.
 * `executeCall` is the in-process host's attempt loop turned inside out: Temporal owns the
 * retries (policy from the step), the activity reports `step.retrying` before a retry and gives
 * the final failure the same message the in-process runner records.
 */
import { ApplicationFailure, activityInfo, cancellationSignal, heartbeat } from '@temporalio/activity';
import type { CallPolicy, Json, RunEventInput, StepCall } from '@weft/engine';
import { attemptCall, deltaEmitter, journalCall } from '../backends/attempt.ts';
import type { FlowSource } from '../backends/flow-source.ts';
import { finishExternalRun, prepareChildRun } from '../backends/run-rows.ts';
import type { ExecutorRegistry } from '../executors/index.ts';
import { reportRunEvents } from '../store/report-events.ts';
import type { RunStore } from '../store/types.ts';
import type { WeftActivities } from './types.ts';

/** Well under the workflow's heartbeatTimeout; the SDK throttles what it sends to the server. */
const HEARTBEAT_INTERVAL_MS = 1_000;

export interface ActivityDeps {
  store: RunStore;
  executors: ExecutorRegistry;
  flows: FlowSource;
}

export function createActivities({ store, executors, flows }: ActivityDeps): WeftActivities {
  const report = (runId: string, events: RunEventInput[]) => reportRunEvents(store, runId, events);

  return {
    reportEvents: report,
    journal: (runId, entries) => store.commit([{ runId, journal: entries, events: [] }]).then(() => undefined),

    async executeCall(
      runId: string,
      stepId: string,
      call: StepCall,
      policy: CallPolicy,
      events?: RunEventInput[],
    ): Promise<Json> {
      // What the workflow emitted before the call (its step.started): stored before the call's
      // own retries and deltas; a retried attempt writes it again, which the store dedupes.
      if (events && events.length > 0) await report(runId, events);
      const { attempt } = activityInfo();
      const cancelled = cancellationSignal();
      const emitDelta = deltaEmitter(stepId, (event) => {
        void report(runId, [event]).catch(() => undefined);
      });
      // Heartbeats tell Temporal the worker is alive: when it dies, the attempt times out after
      // the workflow's heartbeatTimeout (not the whole startToClose) and is retried elsewhere.
      // That timeout runs from the attempt's start, so the first beat can wait an interval: a
      // call that ends sooner (most do) costs the server no heartbeat call at all.
      const beating = setInterval(() => heartbeat(), HEARTBEAT_INTERVAL_MS);
      try {
        const result = await attemptCall(executors, call, policy, { runId, stepId, attempt, cancelled, emitDelta });
        if (result.ok || result.final) await journalCall(store, runId, stepId, call, result);
        if (result.ok) return result.value;
        const { error } = result;
        if (result.final)
          throw ApplicationFailure.create({
            message: error.message,
            type: error.name ?? 'Error',
            nonRetryable: true,
            details: [error],
          });
        await report(runId, [{ type: 'step.retrying', stepId, attempt, error, delayMs: result.delayMs }]);
        throw ApplicationFailure.create({ message: error.message, type: error.name ?? 'Error', details: [error] });
      } finally {
        clearInterval(beating);
      }
    },

    prepareChild: (request) => prepareChildRun(store, flows, 'temporal', request),
    finishRun: (runId, end, events) => finishExternalRun(store, runId, end, events),
  };
}
