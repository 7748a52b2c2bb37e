/**
 * A Temporal worker for Weft: the generic workflow (bundled once per process) and the
 * activities bound to a store, an executor registry and a flow source.
 */
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { FlowSource } from '../backends/flow-source.ts';
import type { ExecutorRegistry } from '../executors/index.ts';
import type { RunStore } from '../store/types.ts';
import { createActivities } from './activities.ts';
import { DEFAULT_TASK_QUEUE } from './types.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('./workflows.ts', import.meta.url));

let bundling: Promise<WorkflowBundleWithSourceMap> | undefined;

/**
 * The workflow bundle; built on first use and shared by every worker of the process. The engine
 * is preloaded (an SDK bundler option): evaluated once per workflow thread and shared, frozen, by
 * its workflows, instead of once per workflow run — its schemas and step table otherwise cost
 * ~9 ms of every run's first workflow task. It may be shared: the engine keeps no per-run state
 * at module scope, only pure memo caches (compiled expressions and templates, message hashes).
 */
export function weftWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundling ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, preloadModules: ['@weft/engine'] });
  return bundling;
}

export interface TemporalWorkerOptions {
  /** host:port of the Temporal frontend. */
  address: string;
  namespace?: string;
  taskQueue?: string;
  store: RunStore;
  executors: ExecutorRegistry;
  flows: FlowSource;
}

export interface TemporalWorkerHandle {
  readonly taskQueue: string;
  /** Resolves when the worker stops; rejects if it fails. */
  readonly running: Promise<void>;
  shutdown(): Promise<void>;
}

export async function startTemporalWorker(options: TemporalWorkerOptions): Promise<TemporalWorkerHandle> {
  const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  const connection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace ?? 'default',
    taskQueue,
    workflowBundle: await weftWorkflowBundle(),
    activities: createActivities(options),
  });
  const running = worker.run();
  running.catch(() => undefined);
  return {
    taskQueue,
    running,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await connection.close();
    },
  };
}
