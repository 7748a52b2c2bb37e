/**
 * The Temporal backend passes the conformance suite on a real Temporal dev server (built from
 * the Go module proxy and cached by scripts/ensure-temporal.sh), with one worker and a SQLite
 * store in a temp dir. Run alone with `pnpm test:temporal`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe } from 'vitest';
import { createExecutorRegistry } from '../src/executors/index.ts';
import { openSqliteStore } from '../src/store/index.ts';
import type { RunStore } from '../src/store/types.ts';
import { approveTemporalRun, awaitTemporalRun, connectTemporal, startTemporalRun } from '../src/temporal/client.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../src/temporal/dev-server.ts';
import { startTemporalWorker, type TemporalWorkerHandle, weftWorkflowBundle } from '../src/temporal/worker.ts';
import type { ConformanceAdapter } from './adapter.ts';
import { defineConformanceSuite } from './index.ts';
import { mutableFlowSource } from './mutable-flows.ts';

/** Building the binary on a clean clone takes minutes; starting it and bundling, seconds. */
const SETUP_TIMEOUT_MS = 15 * 60_000;

let server: TemporalDevServer | undefined;
beforeAll(async () => {
  // Runs that fail on purpose would each log a warning.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  // Bundle while the server starts.
  [server] = await Promise.all([startTemporalDevServer(), weftWorkflowBundle()]);
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
}, 30_000);

async function temporalAdapter(): Promise<ConformanceAdapter> {
  if (!server) throw new Error('the Temporal dev server did not start');
  const dir = mkdtempSync(join(tmpdir(), 'weft-temporal-'));
  const store: RunStore = await openSqliteStore(join(dir, 'weft.db'));
  const flows = mutableFlowSource();
  const taskQueue = `weft-conformance-${process.pid}`;
  let worker: TemporalWorkerHandle | undefined;
  let client: Client | undefined;
  try {
    worker = await startTemporalWorker({
      address: server.address,
      taskQueue,
      store,
      flows,
      executors: createExecutorRegistry({ http: { allowPrivateNetwork: true } }),
    });
    client = await connectTemporal({ address: server.address });
  } catch (error) {
    await worker?.shutdown();
    await store.close();
    throw error;
  }
  const temporal = client;
  return {
    name: 'temporal (sqlite)',
    async start({ flow, flows: corpus, input, fixtures }) {
      flows.set(corpus);
      return startTemporalRun({ client: temporal, store, taskQueue, flow, input, fixtures });
    },
    async decide(runId, stepId, decision) {
      await approveTemporalRun(temporal, runId, { stepId, ...decision });
    },
    async waitForEnd(runId) {
      await awaitTemporalRun(temporal, runId);
      const run = await store.getRun(runId);
      if (!run) throw new Error(`unknown run ${runId}`);
      return { status: run.status, output: run.output, error: run.error };
    },
    events: (runId) => store.readEvents(runId),
    async close() {
      await worker?.shutdown();
      await temporal.connection.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('temporal on a real dev server', () => {
  defineConformanceSuite(temporalAdapter);
});
