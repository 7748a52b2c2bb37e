/**
 * The in-process runner as a conformance adapter over a given store. Start is asynchronous,
 * like a remote backend's: the run executes in the background until it ends or parks at an
 * approval. A decision is sent as soon as `approval.requested` is visible, as a browser would,
 * and resumes the run by replay; the end is read from the store, since a run may finish in an
 * execution this adapter did not start (a deadline's wake-up).
 */
import { isFinalStatus } from '@weft/engine';
import { createExecutorRegistry } from '../src/executors/index.ts';
import { InProcessRunner, memoryFlowSource, type RunnerOptions, type RunOutcome } from '../src/inprocess/index.ts';
import type { RunStore } from '../src/store/types.ts';
import type { ConformanceAdapter } from './adapter.ts';

const END_TIMEOUT_MS = 15_000;

export function inProcessConformanceAdapter(options: {
  name: string;
  store: RunStore;
  /** Runner options beyond store, executors and flows (e.g. what interprets a flow). */
  runner?: Partial<Pick<RunnerOptions, 'interpret'>>;
  /** Frees what the caller opened for the store, after the store is closed. */
  cleanup?: () => Promise<void> | void;
}): ConformanceAdapter {
  const { store } = options;
  const runners: InProcessRunner[] = [];
  const executions = new Map<string, { runner: InProcessRunner; execution: Promise<RunOutcome> }>();
  const tracked = (runId: string) => {
    const entry = executions.get(runId);
    if (!entry) throw new Error(`this adapter did not start run ${runId}`);
    return entry;
  };
  return {
    name: options.name,
    async start({ flow, flows, input, fixtures }) {
      const runner = new InProcessRunner({
        store,
        executors: createExecutorRegistry({ http: { allowPrivateNetwork: true } }),
        flows: memoryFlowSource(flows),
        ...options.runner,
      });
      runners.push(runner);
      const runId = await runner.create(flow, input, { fixtures });
      const execution = runner.execute(runId);
      execution.catch(() => {}); // observed by waitForEnd / decide
      executions.set(runId, { runner, execution });
      return { runId };
    },
    async decide(runId, stepId, decision) {
      const entry = tracked(runId);
      const previous = entry.execution;
      const resumed = entry.runner.approve(runId, stepId, decision).then(({ outcome }) => outcome);
      entry.execution = Promise.allSettled([previous, resumed]).then(() => resumed);
      entry.execution.catch(() => {});
    },
    async waitForEnd(runId) {
      await tracked(runId).execution.catch(() => {});
      for (const started = Date.now(); Date.now() - started < END_TIMEOUT_MS; ) {
        const run = await store.getRun(runId);
        if (run && isFinalStatus(run.status)) return { status: run.status, output: run.output, error: run.error };
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`run ${runId} did not end within ${END_TIMEOUT_MS / 1000} s`);
    },
    events: (runId) => store.readEvents(runId),
    async close() {
      await Promise.allSettled([...executions.values()].map((entry) => entry.execution));
      for (const runner of runners) await runner.close();
      await store.close();
      await options.cleanup?.();
    },
  };
}
