/** The `code` call: a JavaScript function body run in the QuickJS sandbox, on the registry's worker pool. */
import type { CodeCallInput, Json } from '@weft/engine';
import { SizeLimitError, STEP_OUTPUT_LIMIT } from '../limits.ts';
import { runInSandbox } from './sandbox.ts';
import type { ExecutorContext, ExecutorDeps } from './types.ts';

export async function executeCode(input: CodeCallInput, ctx: ExecutorContext, deps: ExecutorDeps): Promise<Json> {
  const { pool, ...limits } = deps.sandbox;
  const limit = deps.maxOutputBytes;
  // The step output limit, checked by the worker on its JSON text: an oversize result is
  // refused without crossing to this thread (copying and parsing 4 MB held the event loop).
  const resultLimit = {
    maxBytes: limit,
    tooLarge: (bytes: number) => new SizeLimitError(`step '${ctx.stepId}' output`, bytes, limit, STEP_OUTPUT_LIMIT),
  };
  // The signal reaches the worker: a cancelled or timed-out step leaves the queue, or has its
  // worker terminated, instead of running on to its own time limit. The run id gives the call
  // its run's line in the pool's queue, so one run's map does not hold the others' steps.
  return runInSandbox(
    input.source,
    { args: input.args ?? null, input: input.input ?? null, steps: input.steps ?? {} },
    { ...limits, label: 'code step' },
    { signal: ctx.signal, pool, resultLimit, runId: ctx.runId },
  );
}
