/**
 * The API on a real Inngest dev server, as a user runs it: `weft serve` with INNGEST_DEV
 * serves the generic function at /api/inngest and syncs itself with the dev server.
 * - API crash: the server is SIGKILLed while an http step is in flight, a new server starts on
 *   the same data (and syncs its new URL); the run completes with the uninterrupted output, and
 *   no step that had completed is executed again.
 * - An approval waits across a server restart and resumes on the decision made through the
 *   new server's API.
 * Side effects are counted by a small HTTP server of the test's own on loopback.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@weft/adapters/backends';
import { type InngestDevServer, startInngestDevServer } from '@weft/adapters/inngest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FlowDoc } from '../src/server/test-support.ts';
import { expectRunViewOfApproval } from './run-view-checks.ts';
import { client, type Server, serve, shutdown } from './serve-process.ts';

let inngest: InngestDevServer;
let dataDir: string;
let env: Record<string, string>;
const servers: Server[] = [];
let sideEffects: HttpServer;
let sideEffectsUrl: string;
/** Requests per path; a path under /slow/ answers after SLOW_MS. */
const hits = new Map<string, number>();
const SLOW_MS = 4_000;

beforeAll(async () => {
  inngest = await startInngestDevServer();
  dataDir = await mkdtemp(join(tmpdir(), 'weft-inngest-api-'));
  env = { INNGEST_DEV: '1', INNGEST_BASE_URL: inngest.url, WEFT_HTTP_ALLOW_PRIVATE: '1' };
  sideEffects = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path }));
    if (path.startsWith('/slow/')) setTimeout(answer, SLOW_MS);
    else answer();
  });
  await new Promise<void>((resolve) => sideEffects.listen(0, '127.0.0.1', resolve));
  const address = sideEffects.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  sideEffectsUrl = `http://127.0.0.1:${address.port}`;
}, 15 * 60_000);

afterAll(async () => {
  for (const server of servers) await shutdown(server);
  await inngest?.stop();
  await new Promise((resolve) => sideEffects?.close(resolve));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

/** The API's port: Inngest calls the app at the URL it last synced, so a restart comes back on it. */
let port = 0;
async function start(name: string): Promise<Server> {
  port ||= await freePort();
  const server = await serve(name, { dataDir, env, port });
  servers.push(server);
  return server;
}

async function kill(server: Server): Promise<void> {
  server.child.kill('SIGKILL');
  if (server.child.exitCode === null && server.child.signalCode === null)
    await new Promise((resolve) => server.child.once('exit', resolve));
}

const call = (id: string, path: string) => ({
  id,
  type: 'http',
  method: 'POST',
  url: `{{ input.base }}${path}`,
  retry: { maxAttempts: 1 },
});

function crashFlow(): FlowDoc {
  return {
    irVersion: 1,
    id: 'side-effects',
    name: 'Side effects',
    steps: [call('one', '/one'), call('two', '/two'), call('slow', '/slow/three'), call('four', '/four')],
    output: {
      paths: [
        '=steps.one.output.body.path',
        '=steps.two.output.body.path',
        '=steps.slow.output.body.path',
        '=steps.four.output.body.path',
      ],
    },
  };
}

function approvalFlow(): FlowDoc {
  return {
    irVersion: 1,
    id: 'gated',
    name: 'Gated',
    steps: [call('before', '/before'), { id: 'gate', type: 'approval', prompt: 'Go on?' }, call('after', '/after')],
    output: {
      approved: '=steps.gate.output.approved',
      by: '=steps.gate.output.by',
      after: '=steps.after.output.body.path',
    },
  };
}

it('a run survives the API process being SIGKILLed mid-step; completed steps run once', async () => {
  const a = await start('A');
  const viaA = client(a);
  expect(await viaA.backends.list.query()).toEqual(
    expect.arrayContaining([expect.objectContaining({ id: 'inngest', available: true })]),
  );
  await viaA.flows.create.mutate({ doc: crashFlow() });
  const { runId } = await viaA.runs.start.mutate({
    flowId: 'side-effects',
    input: { base: sideEffectsUrl },
    backend: 'inngest',
  });
  // Killed while the slow call is in flight.
  await expect.poll(() => hits.get('/slow/three') ?? 0, { timeout: 30_000 }).toBe(1);
  await kill(a);

  const b = await start('B');
  const viaB = client(b);
  await expect
    .poll(async () => (await viaB.runs.get.query({ runId })).run.status, { timeout: 90_000, interval: 250 })
    .toBe('completed');
  const { run, state } = await viaB.runs.get.query({ runId });
  expect(run.output).toEqual({ paths: ['/one', '/two', '/slow/three', '/four'] });
  expect(state.status).toBe('completed');
  // Completed before the kill: not executed again. The call in flight ran again (at least once).
  const counts = Object.fromEntries(hits);
  expect(counts).toMatchObject({ '/one': 1, '/two': 1, '/four': 1 });
  expect(counts['/slow/three']).toBeGreaterThanOrEqual(2);
}, 180_000);

it('an approval waits across an API restart and resumes on the decision made through the API', async () => {
  const a = servers.at(-1) ?? (await start('C'));
  const viaA = client(a);
  await viaA.flows.create.mutate({ doc: approvalFlow() });
  const { runId } = await viaA.runs.start.mutate({
    flowId: 'gated',
    input: { base: sideEffectsUrl },
    backend: 'inngest',
  });
  await expect
    .poll(async () => (await viaA.approvals.list.query({ runId })).map((approval) => approval.stepId), {
      timeout: 30_000,
    })
    .toEqual(['gate']);
  await expect.poll(async () => (await viaA.runs.get.query({ runId })).run.status, { timeout: 10_000 }).toBe('waiting');
  await kill(a);

  const b = await start('D');
  const viaB = client(b);
  const decision = await viaB.approvals.decide.mutate({ runId, stepId: 'gate', approved: true, comment: 'ship it' });
  expect(decision).toMatchObject({ accepted: true, approved: true });
  await expect
    .poll(async () => (await viaB.runs.get.query({ runId })).run.status, { timeout: 60_000, interval: 250 })
    .toBe('completed')
    .catch(async (error: unknown) => {
      const { state } = await viaB.runs.get.query({ runId });
      throw new Error(
        `${String(error)}; steps: ${JSON.stringify(state.steps).slice(0, 1500)}; hits ${JSON.stringify(Object.fromEntries(hits))}`,
      );
    });
  const { run, state } = await viaB.runs.get.query({ runId });
  expect(run.output).toEqual({ approved: true, by: 'api', after: '/after' });
  expect(state.steps.gate?.output).toMatchObject({ approved: true, comment: 'ship it' });
  expect(hits.get('/before')).toBe(1);
  expect(hits.get('/after')).toBe(1);
  // The run debugger reads the Inngest run like any other.
  await expectRunViewOfApproval(viaB, runId, 'gate');
}, 180_000);

it('cancelling an inngest run through the API ends it as cancelled', async () => {
  const server = servers.at(-1) ?? (await start('E'));
  const api = client(server);
  const { runId } = await api.runs.start.mutate({
    flowId: 'gated',
    input: { base: sideEffectsUrl },
    backend: 'inngest',
  });
  await expect.poll(async () => (await api.runs.get.query({ runId })).run.status, { timeout: 30_000 }).toBe('waiting');
  await api.runs.cancel.mutate({ runId });
  await expect
    .poll(async () => (await api.runs.get.query({ runId })).run.status, { timeout: 10_000 })
    .toBe('cancelled');
  // A decision after the cancel changes nothing: the function was cancelled in Inngest.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect((await api.runs.get.query({ runId })).state.steps.after).toBeUndefined();
}, 90_000);
