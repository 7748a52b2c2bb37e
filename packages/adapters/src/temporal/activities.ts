/**
 * The activities the generic workflow calls, bound to one worker's store, executors and flows.
 * `executeCall` is the in-process host's attempt loop turned inside out: Temporal owns the
 * retries (policy from the step), the activity reports `step.retrying` before a retry and gives
 * the final failure the same message the in-process runner records.
 */
import { ApplicationFailure, activityInfo, cancellationSignal, heartbeat } from '@temporalio/activity';
import {
  type CallPolicy,
  DeterminismError,
  type Json,
  NonRetryableError,
  type RunEventInput,
  retryDelayMs,
  type StepCall,
  toErrorInfo,
} from '@weft/engine';
import type { ExecutorRegistry } from '../executors/index.ts';
import { FlowNotFoundError, type FlowSource } from '../inprocess/flow-source.ts';
import { raceAbort, StepTimeoutError, withTimeout } from '../inprocess/timing.ts';
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
  const report = async (runId: string, events: RunEventInput[]) => {
    if (events.length > 0) await store.commit([{ runId, journal: [], events }]);
  };

  return {
    reportEvents: report,

    async executeCall(runId: string, stepId: string, call: StepCall, policy: CallPolicy): Promise<Json> {
      const { attempt } = activityInfo();
      const cancelled = cancellationSignal();
      const signal =
        policy.timeoutMs === undefined
          ? cancelled
          : AbortSignal.any([cancelled, AbortSignal.timeout(policy.timeoutMs)]);
      const emitDelta = (text: string) => {
        void report(runId, [{ type: 'step.delta', stepId, text }]).catch(() => undefined);
      };
      // Heartbeats tell Temporal the worker is alive: when it dies, the attempt times out after
      // the workflow's heartbeatTimeout (not the whole startToClose) and is retried elsewhere.
      heartbeat();
      const beating = setInterval(() => heartbeat(), HEARTBEAT_INTERVAL_MS);
      try {
        const work = executors.execute(call, { signal, runId, stepId, emitDelta });
        return await withTimeout(raceAbort(work, cancelled), policy.timeoutMs, stepId);
      } catch (caught) {
        if (cancelled.aborted) throw caught;
        const error =
          signal.aborted && !(caught instanceof StepTimeoutError)
            ? new StepTimeoutError(`step '${stepId}' timed out after ${policy.timeoutMs} ms`)
            : caught;
        const info = toErrorInfo(error);
        const retryable = !(error instanceof NonRetryableError) && !(error instanceof DeterminismError);
        if (!retryable || attempt >= policy.retry.maxAttempts) {
          if (attempt > 1) info.message = `${info.message} (after ${attempt} attempts)`;
          throw ApplicationFailure.create({
            message: info.message,
            type: info.name ?? 'Error',
            nonRetryable: true,
            details: [info],
          });
        }
        const delayMs = retryDelayMs(policy.retry, attempt);
        await report(runId, [{ type: 'step.retrying', stepId, attempt, error: info, delayMs }]);
        throw ApplicationFailure.create({ message: info.message, type: info.name ?? 'Error', details: [info] });
      } finally {
        clearInterval(beating);
      }
    },

    async prepareChild({ parentRunId, childRunId, stepId, ref, input, fixtures }) {
      const existing = await store.getRun(childRunId);
      if (existing) return { flow: existing.flow as never };
      const flow = await flows.getFlow(ref);
      if (!flow) return { error: toErrorInfo(new FlowNotFoundError(ref)) };
      await store.createRun({
        id: childRunId,
        flowId: flow.id,
        flowVersion: flow.version ?? 1,
        flow: flow as unknown as Json,
        input,
        backend: 'temporal',
        parentRunId,
        parentStepId: stepId,
        status: 'running',
        ...(fixtures ? { fixtures: fixtures as Json } : {}),
      });
      return { flow };
    },

    async finishRun(runId, end, events) {
      await report(runId, events);
      await store.updateRun(runId, {
        status: end.status,
        output: end.status === 'completed' ? end.output : null,
        error: end.status === 'completed' ? null : end.error,
      });
    },
  };
}
