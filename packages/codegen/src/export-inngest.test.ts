/**
 * The `inngest` export behaves like the flow on a real Inngest dev server: every example is
 * exported, the modules are loaded with INNGEST_DEV / INNGEST_BASE_URL pointing their client at
 * the dev server, and all their functions are served from this process (`inngest/node`) on a
 * loopback port and synced with a PUT. Each conformance case an export can run
 * (test-support/server-cases.ts) starts with its `weft/<flow>.run` event; its run's output (or
 * failure) is read from the dev server's GraphQL API (the event's function runs). An approval is
 * decided with `weft/approval.decided` once a small function of the test's own has seen the
 * run's `weft/approval.requested`. Run with `pnpm test:export-servers`.
 */
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startDemoApi, withApiBase } from '@weft/adapters/conformance';
import { startInngestDevServer } from '@weft/adapters/inngest';
import type { Json } from '@weft/engine';
import type { Inngest, InngestFunction } from 'inngest';
import { serve } from 'inngest/node';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  CASE_TIMEOUT_MS,
  EXPORT_CASES,
  type ExportRunResult,
  expectCaseResult,
  SERVER_SETUP_TIMEOUT_MS,
  writeExports,
} from './test-support/server-cases.ts';

let teardown: (() => Promise<void>)[] = [];
let client: Inngest.Any | undefined;
let devUrl = '';
let apiBase = '';
/** The `weft/approval.requested` events seen so far: `<runId> <stepId>`. */
const requested = new Set<string>();

beforeAll(async () => {
  const [devServer, api, exported] = await Promise.all([
    startInngestDevServer(),
    startDemoApi(),
    writeExports('inngest'),
  ]);
  teardown.push(
    () => devServer.stop(),
    () => api.close(),
    async () => rmSync(exported.folder, { recursive: true, force: true }),
  );
  devUrl = devServer.url;
  apiBase = api.baseUrl;

  // The exported client reads these when its module loads.
  process.env.INNGEST_DEV = '1';
  process.env.INNGEST_BASE_URL = devUrl;
  const functions: InngestFunction.Any[] = [];
  for (const file of exported.files) {
    const module = (await import(pathToFileURL(join(exported.folder, file)).href)) as {
      inngest: Inngest.Any;
      default: InngestFunction.Any;
    };
    client ??= module.inngest;
    functions.push(module.default);
  }
  if (!client) throw new Error('no exported module');
  const recorder = client.createFunction(
    { id: 'test-approval-requests', triggers: [{ event: 'weft/approval.requested' }] },
    async ({ event }) => {
      requested.add(`${event.data.runId} ${event.data.stepId}`);
    },
  );
  const handler = serve({ client, functions: [...functions, recorder] });
  const http = createServer((req, res) => {
    if (req.url?.startsWith('/api/inngest')) return handler(req, res);
    res.writeHead(404).end();
  });
  const origin = await listen(http);
  teardown.push(() => new Promise((resolve) => http.close(() => resolve())));
  const sync = await fetch(`${origin}/api/inngest`, { method: 'PUT' });
  if (!sync.ok) throw new Error(`syncing the app failed: ${sync.status} ${await sync.text()}`);
}, SERVER_SETUP_TIMEOUT_MS);

afterAll(async () => {
  for (const step of teardown.reverse()) await step().catch(() => {});
  teardown = [];
}, 60_000);

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

interface RunRow {
  id: string;
  status: string;
  /** JSON text: the return value, or the error that failed the run. */
  output: string | null;
}

/** The run the event started, once the dev server has one (its GraphQL API: the REST one caches for 15 s). */
async function runOf(eventId: string): Promise<RunRow | undefined> {
  const query = `{ event(query: { eventId: ${JSON.stringify(eventId)} }) { functionRuns { id status output } } }`;
  const response = await fetch(`${devUrl}/v0/gql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  if (!response.ok) return undefined;
  const body = (await response.json()) as { data?: { event?: { functionRuns?: RunRow[] } | null } };
  return body.data?.event?.functionRuns?.[0];
}

async function runCase(testCase: (typeof EXPORT_CASES)[number]): Promise<ExportRunResult> {
  if (!client) throw new Error('the Inngest dev server or the app did not start');
  const { ids } = await client.send({ name: `weft/${testCase.flow}.run`, data: withApiBase(testCase.input, apiBase) });
  const eventId = ids[0]!;
  const deadline = Date.now() + CASE_TIMEOUT_MS - 5_000;
  for (let run = await runOf(eventId); Date.now() < deadline; run = await runOf(eventId)) {
    if (run?.status === 'COMPLETED') return { status: 'completed', output: JSON.parse(run.output ?? 'null') as Json };
    if (run?.status === 'FAILED') return { status: 'failed', message: run.output ?? '' };
    if (run !== undefined) {
      for (const [stepId, decision] of Object.entries(testCase.approvals)) {
        // Sent again until the run ends: one sent before the run's waitForEvent is in place is
        // not matched, and one sent after it matched is ignored.
        if (requested.has(`${run.id} ${stepId}`))
          await client.send({ name: 'weft/approval.decided', data: { runId: run.id, stepId, ...decision } });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the run of event ${eventId} did not end: ${JSON.stringify(await runOf(eventId))}`);
}

describe('the inngest export of every conformance flow on a real Inngest dev server', () => {
  it.each(EXPORT_CASES.map((testCase) => [testCase.name, testCase] as const))(
    '%s',
    async (_name, testCase) => {
      expectCaseResult(testCase, await runCase(testCase));
    },
    CASE_TIMEOUT_MS,
  );
});
