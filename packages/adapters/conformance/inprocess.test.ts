/**
 * The in-process runner passes the conformance suite on both of its stores: a SQLite file in a
 * temp dir and a throwaway PostgreSQL database (created with a random name, dropped after).
 */
import { describe } from 'vitest';
import { createExecutorRegistry } from '../src/executors/index.ts';
import { InProcessRunner, memoryFlowSource, type RunOutcome } from '../src/inprocess/index.ts';
import { postgresBackend, sqliteBackend, type TestBackend } from '../src/store/test-support.ts';
import type { ConformanceAdapter } from './adapter.ts';
import { defineConformanceSuite } from './index.ts';

/**
 * Start is asynchronous, like a remote backend's: the run executes in the background until it
 * ends or parks at an approval. A decision is sent as soon as `approval.requested` is visible,
 * as a browser would, and resumes the run by replay; the end is read from the store, since a
 * run may finish in an execution this adapter did not start (a deadline's wake-up).
 */
function inProcessAdapter(backend: TestBackend): () => Promise<ConformanceAdapter> {
  return async () => {
    await backend.setup();
    const store = await backend.open();
    const runners: InProcessRunner[] = [];
    const executions = new Map<string, { runner: InProcessRunner; execution: Promise<RunOutcome> }>();
    const tracked = (runId: string) => {
      const entry = executions.get(runId);
      if (!entry) throw new Error(`this adapter did not start run ${runId}`);
      return entry;
    };
    return {
      name: `inprocess (${backend.name})`,
      async start({ flow, flows, input, fixtures }) {
        const runner = new InProcessRunner({
          store,
          executors: createExecutorRegistry({ http: { allowPrivateNetwork: true } }),
          flows: memoryFlowSource(flows),
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
        for (const started = Date.now(); Date.now() - started < 15_000; ) {
          const run = await store.getRun(runId);
          if (run && ['completed', 'failed', 'cancelled'].includes(run.status)) {
            return { status: run.status, output: run.output, error: run.error };
          }
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        throw new Error(`run ${runId} did not end within 15 s`);
      },
      events: (runId) => store.readEvents(runId),
      async close() {
        await Promise.allSettled([...executions.values()].map((entry) => entry.execution));
        for (const runner of runners) await runner.close();
        await store.close();
        await backend.teardown();
      },
    };
  };
}

describe('inprocess on SQLite', () => {
  defineConformanceSuite(inProcessAdapter(sqliteBackend()));
});

describe('inprocess on PostgreSQL', () => {
  defineConformanceSuite(inProcessAdapter(postgresBackend()));
});
