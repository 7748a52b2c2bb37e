/**
 * Two processes serving the Weft function for one store at different URLs are two Inngest apps,
 * and Inngest starts a run of each app's function for every start event. The first claims the
 * Weft run; the other must end without executing anything: every side effect happens once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Flow } from '@weft/engine';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { memoryFlowSource } from '../../src/backends/flow-source.ts';
import { createExecutorRegistry, type HostTool } from '../../src/executors/index.ts';
import { INNGEST_SERVE_PATH, type InngestBackend, openInngestBackend } from '../../src/inngest/backend.ts';
import { type InngestDevServer, startInngestDevServer } from '../../src/inngest/dev-server.ts';
import { RunService } from '../../src/service/run-service.ts';
import { openSqliteStore } from '../../src/store/index.ts';
import type { RunStore } from '../../src/store/types.ts';

let devServer: InngestDevServer;
let store: RunStore;
let dir: string;
const https: Server[] = [];
const calls: string[] = [];

const effect: HostTool = {
  description: 'records that it ran',
  parameters: { type: 'object', properties: {} },
  execute: () => {
    calls.push('effect');
    return 'done';
  },
};

async function app(): Promise<InngestBackend> {
  const backend = openInngestBackend({
    baseUrl: devServer.url,
    isDev: true,
    store,
    serve: {
      store,
      flows: memoryFlowSource([]),
      executors: createExecutorRegistry({ tools: { effect } }),
      tools: { effect },
    },
  });
  const http = createServer((req, res) => {
    if (req.url?.startsWith(INNGEST_SERVE_PATH)) backend.handler?.(req, res);
    else res.writeHead(404).end();
  });
  https.push(http);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  await backend.register(`http://127.0.0.1:${address.port}`);
  return backend;
}

beforeAll(async () => {
  devServer = await startInngestDevServer();
  dir = mkdtempSync(join(tmpdir(), 'weft-inngest-apps-'));
  store = await openSqliteStore(join(dir, 'weft.db'));
}, 15 * 60_000);

afterAll(async () => {
  for (const http of https) await new Promise((resolve) => http.close(resolve));
  await store?.close();
  await devServer?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

it('a run started while two apps serve the function executes once', async () => {
  const first = await app();
  await app();
  const flow = {
    irVersion: 1,
    id: 'once',
    name: 'Once',
    steps: [{ id: 'act', type: 'tool', tool: 'effect' }],
    output: '=steps.act.output',
  } as unknown as Flow;
  const service = new RunService({ store, backends: [first], hostTools: ['effect'] });
  const { runId } = await service.start({ flow, input: {} });
  await expect.poll(async () => (await store.getRun(runId))?.status, { timeout: 30_000 }).toBe('completed');
  // Time for a second Inngest run of the other app to do whatever it would do.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(calls).toEqual(['effect']);
  expect((await store.getRun(runId))?.output).toBe('done');
  const started = (await store.readEvents(runId)).filter((event) => event.type === 'step.started');
  expect(started.map((event) => (event as { stepId: string }).stepId)).toEqual(['act']);
}, 60_000);
