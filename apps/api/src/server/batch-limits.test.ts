/**
 * A tRPC batch over its limits (calls, bytes of the answer) gets a 4xx whose message names the
 * limit and its variable; within them the batch is answered as before.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from './http.ts';
import { type ApiServices, createServices } from './services.ts';

let dir: string;
let services: ApiServices;
let server: RunningServer;
const saved = { calls: process.env.WEFT_MAX_BATCH_CALLS, bytes: process.env.WEFT_MAX_BATCH_BYTES };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-batch-'));
  services = await createServices({ dataDir: dir, env: { NODE_ENV: 'test' } });
  process.env.WEFT_MAX_BATCH_CALLS = '3';
  process.env.WEFT_MAX_BATCH_BYTES = '4000';
  server = await startServer({ services, host: '127.0.0.1', port: 0 });
  await services.store.flows.create({
    irVersion: 1,
    id: 'wordy',
    name: 'wordy',
    description: 'x'.repeat(1500),
    steps: [{ id: 'a', type: 'code', source: 'return 1;' }],
  } as never);
});

afterAll(async () => {
  for (const [name, value] of [
    ['WEFT_MAX_BATCH_CALLS', saved.calls],
    ['WEFT_MAX_BATCH_BYTES', saved.bytes],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await server?.close();
  await services?.close();
  await rm(dir, { recursive: true, force: true });
});

function batch(count: number) {
  const input = Object.fromEntries(Array.from({ length: count }, (_, i) => [String(i), { id: 'wordy' }]));
  const paths = Array.from({ length: count }, () => 'flows.get').join(',');
  return fetch(`${server.url}/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`);
}

describe('tRPC batch limits', () => {
  it('answers a batch within both limits', async () => {
    const response = await batch(2);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { data: { id: string } } }[];
    expect(body.map((item) => item.result.data.id)).toEqual(['wordy', 'wordy']);
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(3000);
  });

  it('refuses a batch of more calls than WEFT_MAX_BATCH_CALLS with 400 naming the limit', async () => {
    const response = await batch(4);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toBe(
      'a tRPC batch of 4 calls is over the limit of 3 calls per batch (WEFT_MAX_BATCH_CALLS)',
    );
  });

  it('refuses a batch whose answer is over WEFT_MAX_BATCH_BYTES with 413 naming the limit', async () => {
    const response = await batch(3);
    expect(response.status).toBe(413);
    const body = (await response.json()) as { error: { message: string; data: { code: string } } };
    expect(body.error.message).toMatch(
      /^the answer to this tRPC batch is \d+ bytes, over the 4000 bytes batch response limit \(WEFT_MAX_BATCH_BYTES\)/,
    );
    expect(body.error.data.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('leaves single calls alone', async () => {
    const response = await fetch(
      `${server.url}/trpc/flows.get?input=${encodeURIComponent(JSON.stringify({ id: 'wordy' }))}`,
    );
    expect(response.status).toBe(200);
  });
});
