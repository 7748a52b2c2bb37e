/**
 * Idempotency keys in exported code: the Inngest and Temporal exports make their own http
 * requests, so they derive the `Idempotency-Key` themselves, the way Weft's executor does
 * (SHA-256 of the run id and the step path, base64url, quoted), from the engine's own run id;
 * a step or http tool that opted out sends none. The emitted module is written to disk and
 * imported, and its `httpRequest` is run against a loopback server.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Flow, validateFlow } from '@weft/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportFlow, exportFlowFiles } from './export-flow.ts';
import { importFlow } from './import/import-flow.ts';

function flow(raw: Record<string, unknown>): Flow {
  const result = validateFlow({ irVersion: 1, id: 'demo', name: 'Demo', ...raw });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.flow;
}

const charges = flow({
  tools: {
    refund: {
      description: 'Refunds a charge',
      parameters: { type: 'object' },
      http: { method: 'POST', url: 'https://pay.example/refunds', idempotencyKey: false },
    },
  },
  steps: [
    { id: 'charge', type: 'http', method: 'POST', url: 'https://pay.example/charges', body: { a: 1 } },
    { id: 'ping', type: 'http', url: 'https://pay.example/ping', idempotencyKey: false },
    { id: 'undo', type: 'tool', tool: 'refund', args: {} },
  ],
});

/** The emitted module text of `target` (one file per module). */
async function files(target: 'inngest' | 'temporal'): Promise<Record<string, string>> {
  const out = await exportFlowFiles(charges, target, {});
  return Object.fromEntries(out.map((file) => [file.path, file.contents]));
}

type HttpRequestFn = (
  request: unknown,
  call: { runId: string; stepId: string },
  signal?: AbortSignal,
) => Promise<{ status: number }>;

/** Where the emitted modules are written: inside this package, so `inngest` and `@temporalio/activity` resolve. */
const folder = fileURLToPath(new URL(`../.tmp-idempotency-${process.pid}/`, import.meta.url));

/**
 * The emitted `httpRequest` of `target`'s module `file`, written to disk and imported as it is.
 * The Temporal activities export it; the Inngest module keeps it private, so one line exporting
 * it is appended (nothing else of the emitted text changes).
 */
async function emittedHttpRequest(target: 'inngest' | 'temporal', file: string): Promise<HttpRequestFn> {
  const source = (await files(target))[file]!;
  const path = join(folder, target, file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, target === 'inngest' ? `${source}\nexport { httpRequest };\n` : source);
  const module = (await import(pathToFileURL(path).href)) as { httpRequest: HttpRequestFn };
  return module.httpRequest;
}

const received: IncomingHttpHeaders[] = [];
let base = '';
const server = createServer((req, res) => {
  received.push(req.headers);
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{}');
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  await new Promise((resolve) => server.close(resolve));
});

describe.each([
  ['inngest', 'demo.ts'],
  ['temporal', 'demo.activities.ts'],
] as const)('%s export', (target, file) => {
  it('sends the Idempotency-Key Weft would for the same run and checkpoint, and none when opted out', async () => {
    const emitted = await emittedHttpRequest(target, file);
    // Outside an activity the Temporal default (`cancellationSignal()`) throws: hand a signal in.
    const signal = new AbortController().signal;
    const httpRequest = (request: unknown, call: { runId: string; stepId: string }) => emitted(request, call, signal);
    const call = { runId: 'run-7', stepId: 'each[2]/charge' };
    const key = `"${createHash('sha256').update('run-7\u0000each[2]/charge').digest('base64url')}"`;
    received.length = 0;
    await httpRequest({ method: 'POST', url: `${base}/a`, headers: {}, body: { a: 1 } }, call);
    await httpRequest({ method: 'POST', url: `${base}/a`, headers: {}, body: { a: 1 } }, call);
    await httpRequest({ method: 'GET', url: `${base}/b`, headers: {}, idempotencyKey: false }, call);
    await httpRequest({ method: 'GET', url: `${base}/c`, headers: { 'Idempotency-Key': 'mine' } }, call);
    expect(received.map((headers) => headers['idempotency-key'])).toEqual([key, key, undefined, 'mine']);
  });

  it('hands the opt-outs of the step and the http tool to the request', async () => {
    // Line breaks and trailing commas are the printer's: compare with both gone.
    const all = Object.values(await files(target))
      .join('\n')
      .replace(/\s+/g, ' ')
      .replace(/,\s*([)}\]])/g, ' $1');
    expect(all).toMatch(/durable\.http\('ping', '\w+', \{[^)]*idempotencyKey: false \}\)/);
    expect(all).toMatch(/url: 'https:\/\/pay\.example\/refunds', headers: \{ ?\}, idempotencyKey: false \}/);
    expect(all).not.toMatch(/durable\.http\('charge'[^)]*idempotencyKey/);
  });
});

it("temporal: the key's run id is the workflow execution's, read in the workflow; node:crypto only in the activities", async () => {
  const out = await files('temporal');
  expect(out['demo.workflow.ts']).toContain(
    'CALLS[policy].httpRequest(request, { runId: workflowInfo().runId, stepId: id })',
  );
  expect(out['demo.workflow.ts']).not.toContain('node:crypto');
  expect(out['demo.activities.ts']).toContain("import { createHash } from 'node:crypto';");
});

it("inngest: the key's run id is the function run's", async () => {
  const out = (await files('inngest'))['demo.ts']!;
  expect(out).toContain('async ({ event, step, attempt, runId }) =>');
  expect(out).toContain('httpRequest(request, { runId, stepId: id }, signal)');
});

it('weft export: the opt-outs survive the round trip through code-first TypeScript', async () => {
  const source = await exportFlow(charges, 'weft');
  const imported = importFlow(source);
  if (!imported.ok) throw new Error(JSON.stringify(imported.errors));
  expect(imported.flow.steps.find((step) => step.id === 'ping')).toMatchObject({ idempotencyKey: false });
  expect(imported.flow.tools?.refund?.http).toMatchObject({ idempotencyKey: false });
});
