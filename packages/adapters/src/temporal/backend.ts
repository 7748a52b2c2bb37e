/**
 * Temporal as a RunBackend: a client on TEMPORAL_ADDRESS and, unless a worker runs
 * elsewhere, a worker in this process. The Temporal UI link needs TEMPORAL_UI_URL (the dev
 * server started by `weft backend up temporal` prints it).
 */
import type { Client } from '@temporalio/client';
import type { ToolSpec } from '@weft/engine';
import type { FlowSource } from '../backends/flow-source.ts';
import type { RunBackend } from '../backends/run-backend.ts';
import type { ExecutorRegistry } from '../executors/index.ts';
import type { RunStore } from '../store/types.ts';
import { approveTemporalRun, cancelTemporalRun, connectTemporal, startTemporalRun } from './client.ts';
import { startTemporalWorker, type TemporalWorkerHandle } from './worker.ts';

export interface TemporalBackendOptions {
  address: string;
  namespace?: string;
  taskQueue?: string;
  /** Base URL of the Temporal Web UI, for links to a run's workflow. */
  uiUrl?: string;
  store: RunStore;
  /** Host tools the workers offer (name → description and parameters), told to each run's workflow. */
  hostTools?: Record<string, Omit<ToolSpec, 'name'>>;
  /** Start a worker in this process with these; leave out when workers run elsewhere. */
  worker?: { executors: ExecutorRegistry; flows: FlowSource };
}

export interface TemporalBackend extends RunBackend {
  readonly name: 'temporal';
  readonly client: Client;
  readonly worker: TemporalWorkerHandle | undefined;
}

export async function openTemporalBackend(options: TemporalBackendOptions): Promise<TemporalBackend> {
  const namespace = options.namespace ?? 'default';
  const client = await connectTemporal({ address: options.address, namespace });
  let worker: TemporalWorkerHandle | undefined;
  try {
    if (options.worker)
      worker = await startTemporalWorker({
        address: options.address,
        namespace,
        store: options.store,
        ...options.worker,
        ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
      });
  } catch (error) {
    await client.connection.close().catch(() => undefined);
    throw error;
  }
  const uiUrl = options.uiUrl?.replace(/\/+$/, '');
  return {
    name: 'temporal',
    client,
    worker,
    async start(run) {
      await startTemporalRun({
        client,
        ...run,
        ...(options.hostTools ? { hostTools: options.hostTools } : {}),
        ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
      });
    },
    decide: (runId, decision) => approveTemporalRun(client, runId, decision),
    cancel: (runId) => cancelTemporalRun(client, runId),
    // Temporal resumes its workflows by itself whenever a worker polls the task queue.
    async resume() {},
    link: (runId) =>
      uiUrl ? `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(runId)}` : undefined,
    async close() {
      await worker?.shutdown().catch(() => undefined);
      await client.connection.close().catch(() => undefined);
    },
  };
}
