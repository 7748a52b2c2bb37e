/**
 * The API on a real Temporal dev server, as a user runs it: `weft serve` with TEMPORAL_ADDRESS
 * (its worker runs in the server process). A run parks at an approval, the server is killed
 * with SIGKILL, a new server starts on the same data, and the decision made through the new
 * server's API resumes the run on Temporal. Also: the run's Temporal UI link, its `waiting`
 * status, and cancelling a temporal run through the API.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectTemporal, startTemporalDevServer, type TemporalDevServer } from '@weft/adapters/temporal';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chattyFlow } from '../src/server/test-support.ts';
import { expectRunViewOfApproval } from './run-view-checks.ts';
import { client, type Server, serve, shutdown } from './serve-process.ts';

let temporal: TemporalDevServer;
let dataDir: string;
let env: Record<string, string>;
const servers: Server[] = [];

beforeAll(async () => {
  temporal = await startTemporalDevServer();
  dataDir = await mkdtemp(join(tmpdir(), 'weft-temporal-api-'));
  env = { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_UI_URL: 'http://127.0.0.1:8233' };
}, 15 * 60_000);

afterAll(async () => {
  for (const server of servers) await shutdown(server);
  await temporal?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

async function start(name: string): Promise<Server> {
  const server = await serve(name, { dataDir, env });
  servers.push(server);
  return server;
}

/** How often Temporal scheduled the model-call activity of `stepId` in the run's workflow. */
async function scheduledCalls(runId: string, stepId: string): Promise<number> {
  const temporalClient = await connectTemporal({ address: temporal.address });
  try {
    const history = await temporalClient.workflow.getHandle(runId).fetchHistory();
    return (history.events ?? []).filter((event) => {
      const payload = event.activityTaskScheduledEventAttributes?.input?.payloads?.[1]?.data;
      return payload ? JSON.parse(Buffer.from(payload).toString('utf8')) === stepId : false;
    }).length;
  } finally {
    await temporalClient.connection.close();
  }
}

it('an approval waits across a server (and worker) restart and resumes on the API decision', async () => {
  const a = await start('A');
  const viaA = client(a);
  expect(await viaA.backends.list.query()).toEqual(
    expect.arrayContaining([expect.objectContaining({ id: 'temporal', available: true })]),
  );
  await viaA.flows.create.mutate({ doc: chattyFlow });
  const { runId } = await viaA.runs.start.mutate({ flowId: 'chatty', input: { name: 'Ada' }, backend: 'temporal' });

  await expect
    .poll(async () => (await viaA.approvals.list.query({ runId })).map((approval) => approval.stepId), {
      timeout: 30_000,
    })
    .toEqual(['gate']);
  await expect.poll(async () => (await viaA.runs.get.query({ runId })).run.status, { timeout: 10_000 }).toBe('waiting');
  const { run } = await viaA.runs.get.query({ runId });
  expect(run.backend).toBe('temporal');
  expect('link' in run ? run.link : undefined).toBe(`http://127.0.0.1:8233/namespaces/default/workflows/${runId}`);

  a.child.kill('SIGKILL');
  await new Promise((resolve) => a.child.once('exit', resolve));

  const b = await start('B');
  const viaB = client(b);
  expect((await viaB.approvals.list.query({ runId })).map((approval) => approval.stepId)).toEqual(['gate']);
  const decision = await viaB.approvals.decide.mutate({ runId, stepId: 'gate', approved: true, comment: 'go on' });
  expect(decision).toMatchObject({ accepted: true, approved: true });

  await expect
    .poll(async () => (await viaB.runs.get.query({ runId })).run.status, { timeout: 60_000, interval: 200 })
    .toBe('completed');
  const { state } = await viaB.runs.get.query({ runId });
  expect(state.steps.gate?.output).toMatchObject({ approved: true, comment: 'go on' });
  expect(state.steps.second?.status).toBe('completed');
  expect(JSON.stringify(state.steps.second?.output)).toContain('And then what happened to Ada?');
  // The model turn before the approval ran once: the new worker replayed it from history.
  expect(await scheduledCalls(runId, 'first/llm#1')).toBe(1);
  expect(await scheduledCalls(runId, 'second/llm#1')).toBe(1);
  // The run debugger reads the Temporal run like any other.
  await expectRunViewOfApproval(viaB, runId, 'gate');
}, 180_000);

it('cancelling a temporal run through the API ends it as cancelled', async () => {
  const server = servers.at(-1) ?? (await start('C'));
  const api = client(server);
  const { runId } = await api.runs.start.mutate({ flowId: 'chatty', input: { name: 'Bo' }, backend: 'temporal' });
  await expect.poll(async () => (await api.runs.get.query({ runId })).run.status, { timeout: 30_000 }).toBe('waiting');
  await api.runs.cancel.mutate({ runId });
  await expect
    .poll(async () => (await api.runs.get.query({ runId })).run.status, { timeout: 30_000, interval: 200 })
    .toBe('cancelled');
  const { state } = await api.runs.get.query({ runId });
  expect(state.status).toBe('cancelled');
  expect(state.steps.second).toBeUndefined();
}, 90_000);
