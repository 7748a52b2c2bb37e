/**
 * Idempotency keys across a crash: `weft serve` is SIGKILLed while an `http` POST step waits for
 * its answer, so the step has no result in the journal and runs again after the restart. The
 * receiver sees the request twice, both times with the same `Idempotency-Key` (derived from the
 * run id and the checkpoint), which is what lets it act once; the run completes once.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, type Server, serve, shutdown } from './serve-process.ts';

interface Received {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  body: string;
}

/** A loopback receiver that records every request and holds the first POST open, unanswered. */
async function startReceiver() {
  const received: Received[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      received.push({ method: req.method ?? '', path: req.url ?? '', idempotencyKey: key as string, body });
      if (received.length === 1) {
        held.push(res); // the crash comes while this request waits for its answer
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ charged: true, attempt: received.length }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let dataDir: string;
const servers: Server[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  dataDir = await mkdtemp(join(tmpdir(), 'weft-idempotency-'));
});

afterAll(async () => {
  for (const server of servers) await shutdown(server);
  await receiver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

async function start(name: string): Promise<Server> {
  // The receiver is on loopback: the http step may reach it only with private addresses allowed.
  const server = await serve(name, { dataDir, env: { WEFT_HTTP_ALLOW_PRIVATE: '1' } });
  servers.push(server);
  return server;
}

it('a POST in flight when weft serve is SIGKILLed is sent again with the same Idempotency-Key; the run completes once', async () => {
  const a = await start('A');
  await client(a).flows.create.mutate({
    doc: {
      irVersion: 1,
      id: 'charge',
      name: 'Charge',
      steps: [
        {
          id: 'charge',
          type: 'http',
          method: 'POST',
          url: `${receiver.url}/charges`,
          body: { amount: '=input.amount' },
          timeout: '60s',
        },
        { id: 'receipt', type: 'transform', value: { charged: '=steps.charge.output.body.charged' } },
      ],
      output: '=steps.receipt.output',
    },
  });
  const { runId } = await client(a).runs.start.mutate({ flowId: 'charge', input: { amount: 42 } });
  await expect.poll(() => receiver.received.length, { timeout: 30_000 }).toBe(1);

  a.child.kill('SIGKILL');
  await new Promise((resolve) => a.child.once('exit', resolve));
  const b = await start('B'); // its start-up recovers the run, which runs the unfinished step again

  const viaB = client(b);
  await expect
    .poll(async () => (await viaB.runs.get.query({ runId })).run.status, { timeout: 60_000 })
    .toBe('completed');
  expect((await viaB.runs.get.query({ runId })).run.output).toEqual({ charged: true });
  const { events } = await viaB.runs.eventsPage.query({ runId, limit: 5000 });
  expect(events.filter((event) => event.type === 'run.completed')).toHaveLength(1);

  expect(receiver.received.map(({ method, path, body }) => ({ method, path, body }))).toEqual([
    { method: 'POST', path: '/charges', body: '{"amount":42}' },
    { method: 'POST', path: '/charges', body: '{"amount":42}' },
  ]);
  const [first, second] = receiver.received.map((request) => request.idempotencyKey);
  expect(first).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
  expect(second).toBe(first);
  // Weft's run id and the checkpoint, nothing of the process that sent it.
  const expected = createHash('sha256').update(`${runId}\u0000charge`).digest('base64url');
  expect(first).toBe(`"${expected}"`);
}, 180_000);
