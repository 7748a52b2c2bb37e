/**
 * One attempt of a checkpointed call on an external engine, which owns the retries: run the
 * executor under the step's per-attempt timeout and say whether a failure is final (not
 * retryable, or the step's last attempt) or should be retried after the step's backoff. The
 * messages are the in-process runner's, so a run fails the same way on every backend.
 */
import {
  type CallPolicy,
  DeterminismError,
  type ErrorInfo,
  hashCall,
  type Json,
  NonRetryableError,
  type RunEventInput,
  retryDelayMs,
  type StepCall,
  toErrorInfo,
} from '@weft/engine';
import type { ExecutorRegistry } from '../executors/index.ts';
import type { RunStore } from '../store/types.ts';
import { raceAbort, StepTimeoutError, withTimeout } from './timing.ts';

export type AttemptResult =
  | { ok: true; value: Json }
  | { ok: false; final: true; error: ErrorInfo }
  | { ok: false; final: false; error: ErrorInfo; delayMs: number };

export interface AttemptContext {
  runId: string;
  stepId: string;
  /** 1-based. */
  attempt: number;
  /** The engine cancelled the attempt (its run was cancelled, the worker shuts down). */
  cancelled: AbortSignal;
  emitDelta: (text: string) => void;
}

/**
 * An attempt's `emitDelta`: each piece of streamed text as a `step.delta` event with its offset
 * in the attempt's text. Make one per attempt: a retry's text starts again at offset 0.
 */
export function deltaEmitter(stepId: string, write: (event: RunEventInput) => void): (text: string) => void {
  let offset = 0;
  return (text) => {
    write({ type: 'step.delta', stepId, text, offset });
    offset += text.length;
  };
}

export async function attemptCall(
  executors: ExecutorRegistry,
  call: StepCall,
  policy: CallPolicy,
  { runId, stepId, attempt, cancelled, emitDelta }: AttemptContext,
): Promise<AttemptResult> {
  const signal =
    policy.timeoutMs === undefined ? cancelled : AbortSignal.any([cancelled, AbortSignal.timeout(policy.timeoutMs)]);
  try {
    const work = executors.execute(call, { signal, runId, stepId, emitDelta });
    return { ok: true, value: await withTimeout(raceAbort(work, cancelled), policy.timeoutMs, stepId) };
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
      return { ok: false, final: true, error: info };
    }
    return { ok: false, final: false, error: info, delayMs: retryDelayMs(policy.retry, attempt) };
  }
}

/**
 * Keeps a call's final result in Weft's journal, whichever engine ran it (the engines keep
 * their own histories too): what a replay of the run answers from. A retried activity or step
 * writes it once (the store dedupes journal entries by step id).
 */
export async function journalCall(
  store: RunStore,
  runId: string,
  stepId: string,
  call: StepCall,
  result: { ok: true; value: Json } | { ok: false; error: ErrorInfo },
): Promise<void> {
  await store.commit([
    {
      runId,
      events: [],
      journal: [
        {
          stepId,
          kind: call.kind,
          inputHash: hashCall(call),
          status: result.ok ? 'completed' : 'failed',
          output: result.ok ? result.value : null,
          error: result.ok ? null : result.error,
        },
      ],
    },
  ]);
}
