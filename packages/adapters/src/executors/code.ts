/** The `code` call: a JavaScript function body run in the QuickJS sandbox. */
import { type CodeCallInput, type Json, NonRetryableError } from '@weft/engine';
import { runInSandbox } from './sandbox.ts';
import type { ExecutorContext, ExecutorDeps } from './types.ts';

export async function executeCode(input: CodeCallInput, ctx: ExecutorContext, deps: ExecutorDeps): Promise<Json> {
  // The sandbox runs synchronously once started, so a cancelled step must be caught here.
  if (ctx.signal.aborted) throw ctx.signal.reason ?? new NonRetryableError('code step was aborted');
  return runInSandbox(
    input.source,
    { args: input.args ?? null, input: input.input ?? null, steps: input.steps ?? {} },
    { ...deps.sandbox, label: 'code step' },
  );
}
