/**
 * The embedded runner as a RunBackend: each hand-over, decision and resume executes the run in
 * the background on this process's runner (until it ends or parks), so every method returns
 * once the work is under way, as a remote engine's would. A seed is already in the run's
 * journal under its own ids (RunService writes it; backends/seed.ts), where the runner reads it.
 */
import type { RunBackend } from '../backends/run-backend.ts';
import { RunBusyError, RunnerClosedError } from './errors.ts';
import type { RunOutcome } from './options.ts';
import type { InProcessRunner } from './runner.ts';

export interface InProcessBackendOptions {
  /** Told how each background execution ended (a log line); errors never escape otherwise. */
  onExecuted?: (runId: string, result: { outcome: RunOutcome } | { busy: string } | { error: unknown }) => void;
}

export interface InProcessBackend extends RunBackend {
  readonly name: 'inprocess';
  readonly runner: InProcessRunner;
  /** Resolves once every execution this backend started has ended or parked (tests, the CLI). */
  settled(): Promise<void>;
}

export function inProcessBackend(runner: InProcessRunner, options: InProcessBackendOptions = {}): InProcessBackend {
  const executions = new Set<Promise<void>>();
  const executeInBackground = (runId: string) => {
    const execution = runner.execute(runId).then(
      (outcome) => options.onExecuted?.(runId, { outcome }),
      (error: unknown) => {
        // Held by another execution (here or in a live process), which looks again when it parks.
        if (error instanceof RunBusyError || error instanceof RunnerClosedError)
          options.onExecuted?.(runId, { busy: error.message });
        else options.onExecuted?.(runId, { error });
      },
    );
    executions.add(execution);
    void execution.finally(() => executions.delete(execution));
  };
  return {
    name: 'inprocess',
    runner,
    async start(run) {
      executeInBackground(run.runId);
    },
    async decide(runId) {
      executeInBackground(runId);
    },
    // The runner waits for an execution it aborts: the run is `cancelled` when this returns.
    cancel: (runId) => runner.cancel(runId),
    async resume(runId) {
      executeInBackground(runId);
    },
    link: () => undefined,
    async settled() {
      while (executions.size > 0) await Promise.allSettled([...executions]);
    },
    close: () => runner.close(),
  };
}
