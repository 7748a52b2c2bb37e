/**
 * The Inngest backend passes the conformance suite, through RunService, on a real Inngest dev server (built from
 * the Go module proxy and cached by scripts/ensure-inngest.sh): the generic function is served
 * from this process on a loopback port, as `weft serve` serves it at /api/inngest, over a
 * SQLite store in a temp dir. Run alone with `pnpm test:inngest`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { createExecutorRegistry } from '../src/executors/index.ts';
import { openInngestBackend } from '../src/inngest/backend.ts';
import { type InngestDevServer, startInngestDevServer } from '../src/inngest/dev-server.ts';
import { openSqliteStore } from '../src/store/index.ts';
import type { RunStore } from '../src/store/types.ts';
import type { ConformanceAdapter } from './adapter.ts';
import { defineConformanceSuite } from './index.ts';
import { calledSteps, inngestRunOf, inngestRunTrace } from './inngest-history.ts';
import { runServiceConformanceAdapter } from './run-service-adapter.ts';

/** Building the binary on a clean clone takes minutes; starting it, seconds. */
const SETUP_TIMEOUT_MS = 15 * 60_000;

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
  const baseUrl = devServer.url;
  const dir = mkdtempSync(join(tmpdir(), 'weft-inngest-'));
  const store: RunStore = await openSqliteStore(join(dir, 'weft.db'));
  let http: Server | undefined;
  return runServiceConformanceAdapter({
    name: 'inngest (sqlite)',
    store,
    async backend(flows) {
      const backend = openInngestBackend({
        baseUrl,
        isDev: true,
        store,
        serve: { store, flows, executors: createExecutorRegistry({ http: { allowPrivateNetwork: true } }) },
      });
      http = createServer((req, res) => {
        if (req.url?.startsWith('/api/inngest')) return backend.handler?.(req, res);
        res.writeHead(404).end();
      });
      await backend.register(await listen(http));
      return backend;
    },
    async engineCalls(runId) {
      return calledSteps(await inngestRunTrace(baseUrl, await inngestRunOf(store, runId)));
    },
    async cleanup() {
      await new Promise((resolve) => http?.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  })();
}

describe('inngest on a real dev server', () => {
  defineConformanceSuite(inngestAdapter, { handOff: true });
});
