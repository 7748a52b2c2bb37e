/** An InProcessRunner over a store, with the no-op tool registered, as an application would set it up. */
import { createExecutorRegistry } from '../../packages/adapters/src/executors/index.ts';
import { InProcessRunner, type RunOutcome } from '../../packages/adapters/src/inprocess/index.ts';
import type { RunStore } from '../../packages/adapters/src/store/index.ts';
import { hostTools } from './flows.ts';

export function benchRunner(store: RunStore): InProcessRunner {
  return new InProcessRunner({ store, executors: createExecutorRegistry({ tools: hostTools }), tools: hostTools });
}

/** A benchmark that measured a failed run would measure the wrong thing: stop with an error. */
export function expectStatus(outcome: RunOutcome, status: RunOutcome['status']): void {
  if (outcome.status !== status) {
    throw new Error(
      `bench run ${outcome.runId} ended ${outcome.status}, expected ${status}: ${outcome.error?.message ?? ''}`,
    );
  }
}
