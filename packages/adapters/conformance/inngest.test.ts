/**
 * The Inngest backend passes the conformance suite on a real Inngest dev server (built from
 * the Go module proxy and cached by scripts/ensure-inngest.sh): the generic function is served
 * from this process on a loopback port, as `weft serve` serves it at /api/inngest, over a
 * SQLite store in a temp dir. Run alone with `pnpm test:inngest`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isFinalStatus } from '@weft/engine';
import { afterAll, beforeAll, describe } from 'vitest';
import { createExecutorRegistry } from '../src/executors/index.ts';
import { openInngestBackend } from '../src/inngest/backend.ts';
import { type InngestDevServer, startInngestDevServer } from '../src/inngest/dev-server.ts';
import { openSqliteStore } from '../src/store/index.ts';
import type { RunStore } from '../src/store/types.ts';
import type { ConformanceAdapter } from './adapter.ts';
import { defineConformanceSuite } from './index.ts';
import { mutableFlowSource } from './mutable-flows.ts';

/** Building the binary on a clean clone takes minutes; starting it, seconds. */
const SETUP_TIMEOUT_MS = 15 * 60_000;
const RUN_TIMEOUT_MS = 15_000;

let devServer: InngestDevServer | undefined;
beforeAll(async () => {
  devServer = await startInngestDevServer();
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await devServer?.stop();
}, 30_000);

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

async function inngestAdapter(): Promise<ConformanceAdapter> {
  if (!devServer) throw new Error('the Inngest dev server did not start');
  const dir = mkdtempSync(join(tmpdir(), 'weft-inngest-'));
  const store: RunStore = await openSqliteStore(join(dir, 'weft.db'));
  const flows = mutableFlowSource();
  const backend = openInngestBackend({
    baseUrl: devServer.url,
    isDev: true,
    store,
    serve: { store, flows, executors: createExecutorRegistry({ http: { allowPrivateNetwork: true } }) },
  });
  const http = createServer((req, res) => {
    if (req.url?.startsWith('/api/inngest')) return backend.handler?.(req, res);
    res.writeHead(404).end();
  });
  const origin = await listen(http);
  await backend.register(origin);
  return {
    name: 'inngest (sqlite)',
    async start({ flow, flows: corpus, input, fixtures }) {
      flows.set(corpus);
      const runId = `run_${crypto.randomUUID()}`;
      await backend.start({ runId, flow, input, ...(fixtures ? { fixtures } : {}) });
      return { runId };
    },
    async decide(runId, stepId, decision) {
      // As the API does: the decision is recorded first, so the backend re-sends it should it
      // reach Inngest before the run's wait exists (Inngest drops an event nobody waits for).
      await store.resolveApproval(runId, stepId, {
        status: decision.approved ? 'approved' : 'rejected',
        by: decision.by ?? null,
        comment: decision.comment ?? null,
        at: Date.now(),
      });
      await backend.decide(runId, {
        stepId,
        approved: decision.approved,
        by: decision.by ?? null,
        comment: decision.comment ?? null,
      });
    },
    async waitForEnd(runId) {
      const deadline = Date.now() + RUN_TIMEOUT_MS;
      for (;;) {
        const run = await store.getRun(runId);
        if (!run) throw new Error(`unknown run ${runId}`);
        if (isFinalStatus(run.status)) return { status: run.status, output: run.output, error: run.error };
        if (Date.now() > deadline) {
          const last: string[] = [];
          for (const child of [run, ...(await store.listRuns({ parentRunId: runId }))])
            last.push(
              `${child.id} ${child.status}`,
              ...(await store.readEvents(child.id)).slice(-3).map((event) => JSON.stringify(event).slice(0, 300)),
            );
          throw new Error(
            `run ${runId} still ${run.status} after ${RUN_TIMEOUT_MS} ms; last events:\n${last.join('\n')}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    events: (runId) => store.readEvents(runId),
    async close() {
      await backend.close();
      await new Promise((resolve) => http.close(resolve));
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('inngest on a real dev server', () => {
  defineConformanceSuite(inngestAdapter);
});
