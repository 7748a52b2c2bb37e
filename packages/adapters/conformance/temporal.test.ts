/**
 * The Temporal backend passes the conformance suite, through RunService, on a real Temporal dev server (built from
 * the Go module proxy and cached by scripts/ensure-temporal.sh), with one worker and a SQLite
 * store in a temp dir. Run alone with `pnpm test:temporal`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe } from 'vitest';
import { createExecutorRegistry } from '../src/executors/index.ts';
import { openSqliteStore } from '../src/store/index.ts';
import type { RunStore } from '../src/store/types.ts';
import { openTemporalBackend, type TemporalBackend } from '../src/temporal/backend.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../src/temporal/dev-server.ts';
import { weftWorkflowBundle } from '../src/temporal/worker.ts';
import { scheduledCallSteps } from '../test/temporal/support.ts';
import type { ConformanceAdapter } from './adapter.ts';
import { defineConformanceSuite } from './index.ts';
import { runServiceConformanceAdapter } from './run-service-adapter.ts';

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
  const address = server.address;
  const dir = mkdtempSync(join(tmpdir(), 'weft-temporal-'));
  const store: RunStore = await openSqliteStore(join(dir, 'weft.db'));
  let backend: TemporalBackend | undefined;
  return runServiceConformanceAdapter({
    name: 'temporal (sqlite)',
    store,
    // The product's backend, with its worker in this process on a task queue of its own.
    backend: async (flows) => {
      backend = await openTemporalBackend({
        address,
        taskQueue: `weft-conformance-${process.pid}`,
        store,
        worker: { flows, executors: createExecutorRegistry({ http: { allowPrivateNetwork: true } }) },
      });
      return backend;
    },
    async engineCalls(runId) {
      if (!backend) throw new Error('the Temporal backend is not open');
      const history = await backend.client.workflow.getHandle(runId).fetchHistory();
      return scheduledCallSteps(history.events ?? []);
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  })();
}

describe('temporal on a real dev server', () => {
  defineConformanceSuite(temporalAdapter, { handOff: true });
});
