/**
 * The API over real HTTP: health, tRPC queries, the Host allow-list, body limits, malformed and
 * mistyped requests, unknown paths, the bearer token, CORS and the auth helpers behind them.
 * The editor's static files and `weft serve` as a child process are in http-editor.test.ts.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBearer, isLoopback, resolveToken, sameSecret, userLabel } from './auth.ts';
import { type RunningServer, startServer } from './http.ts';
import { type ApiServices, createServices } from './services.ts';

const TOKEN = 'test-token-0123456789';
const WEB = 'http://localhost:5173';

let dir: string;
let services: ApiServices;
let open: RunningServer;
let guarded: RunningServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-http-'));
  services = await createServices({ dataDir: dir, env: { NODE_ENV: 'test' } });
  open = await startServer({ services, host: '127.0.0.1', port: 0 });
  guarded = await startServer({ services, host: '127.0.0.1', port: 0, token: TOKEN, webOrigin: WEB });
});

afterAll(async () => {
  await open?.close();
  await guarded?.close();
  await services?.close();
  await rm(dir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read loosely in tests
async function json(response: Response): Promise<any> {
  return JSON.parse(await response.text());
}

describe('HTTP server', () => {
  it('answers GET /health with { ok: true }', async () => {
    const response = await fetch(`${open.url}/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await json(response)).toEqual({ ok: true });
  });

  it('answers a tRPC query', async () => {
    const response = await fetch(`${open.url}/trpc/models.list`);
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.result).toBeDefined();
  });

  it('refuses a foreign Host header on a token-less loopback server (DNS rebinding)', async () => {
    const get = (url: string, host: string | undefined) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(url, { headers: host === undefined ? {} : { host } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const port = open.port;
    const evil = await get(`${open.url}/trpc/models.list`, 'evil.example');
    expect(evil.status).toBe(403);
    const error = JSON.parse(evil.body).error;
    expect(error.data.code).toBe('FORBIDDEN');
    expect(error.message).toMatch(/Host "evil\.example" is not allowed/);
    expect((await get(`${open.url}/health`, `evil.example:${port}`)).status).toBe(403);
    // The right name on the wrong port is refused too.
    expect((await get(`${open.url}/health`, `localhost:${port + 1}`)).status).toBe(403);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LocalHost:${port}`]) {
      expect((await get(`${open.url}/trpc/models.list`, host)).status, host).toBe(200);
    }
    // With a token configured any Host is fine (the token is the guard).
    const guardedHealth = await get(`${guarded.url}/health`, 'evil.example');
    expect(guardedHealth.status).toBe(200);
  });

  it("answers a non-GET to an unknown path with 404 JSON (GETs are the editor's)", async () => {
    const response = await fetch(`${open.url}/nope`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect((await json(response)).error.message).toMatch(/no such endpoint: POST \/nope/);
  });

  it('answers an unknown procedure with 404', async () => {
    const response = await fetch(`${open.url}/trpc/nothing.here`);
    expect(response.status).toBe(404);
  });

  it('refuses a malformed JSON body with 400', async () => {
    const response = await fetch(`${open.url}/trpc/flows.create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"doc": ',
    });
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(body.error.data.code).toBe('BAD_REQUEST');
    expect(body.error.message).toMatch(/JSON/);
  });

  it('refuses wrong input types with 400 naming the field', async () => {
    const input = encodeURIComponent(JSON.stringify({ id: 42 }));
    const response = await fetch(`${open.url}/trpc/flows.get?input=${input}`);
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(body.error.data.code).toBe('BAD_REQUEST');
    expect(body.error.data.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'id' })]));
  });

  it('refuses a 5 MB body with 413 and keeps serving', async () => {
    const big = JSON.stringify({ doc: { blob: 'x'.repeat(5 * 1024 * 1024) } });
    const response = await fetch(`${open.url}/trpc/flows.create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: big,
    });
    expect(response.status).toBe(413);
    const body = await json(response);
    expect(body.error.data.code).toBe('PAYLOAD_TOO_LARGE');
    expect(body.error.message).toMatch(/limit/);
    expect((await fetch(`${open.url}/health`)).status).toBe(200);
    expect((await fetch(`${open.url}/trpc/models.list`)).status).toBe(200);
  });

  it('refuses an oversized chunked body (no Content-Length) with 413', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 3 * 1024 * 1024) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${open.url}/trpc/flows.create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit).catch((error: unknown) => error);
    // The server may answer before the upload ends; either way the upload is refused.
    if (response instanceof Response) expect(response.status).toBe(413);
    expect((await fetch(`${open.url}/health`)).status).toBe(200);
  });

  it('never sends CORS headers when no web origin is configured', async () => {
    const response = await fetch(`${open.url}/trpc/models.list`, { headers: { origin: WEB } });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('bearer token', () => {
  it('refuses a call without the token: 401 with a clear message', async () => {
    const response = await fetch(`${guarded.url}/trpc/models.list`);
    expect(response.status).toBe(401);
    const body = await json(response);
    expect(body.error.data.code).toBe('UNAUTHORIZED');
    expect(body.error.message).toMatch(/bearer token is required/);
  });

  it('refuses a wrong token: 401', async () => {
    const response = await fetch(`${guarded.url}/trpc/models.list`, { headers: { authorization: 'Bearer nope' } });
    expect(response.status).toBe(401);
    expect((await json(response)).error.message).toMatch(/wrong/);
  });

  it('accepts the right token', async () => {
    const response = await fetch(`${guarded.url}/trpc/models.list`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
  });

  it('leaves /health open', async () => {
    expect((await fetch(`${guarded.url}/health`)).status).toBe(200);
  });
});

describe('CORS', () => {
  it('lets the web origin in, with a preflight', async () => {
    const preflight = await fetch(`${guarded.url}/trpc/flows.create`, {
      method: 'OPTIONS',
      headers: {
        origin: WEB,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(WEB);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/);

    const response = await fetch(`${guarded.url}/trpc/models.list`, {
      headers: { origin: WEB, authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(WEB);
  });

  it('gives any other origin no CORS header, and refuses its calls', async () => {
    const evil = 'https://evil.example';
    const preflight = await fetch(`${guarded.url}/trpc/flows.create`, {
      method: 'OPTIONS',
      headers: { origin: evil, 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.status).toBe(403);

    const response = await fetch(`${guarded.url}/trpc/models.list`, {
      headers: { origin: evil, authorization: `Bearer ${TOKEN}` },
    });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.status).toBe(403);
  });

  it('accepts same-origin browser calls (the editor served from here)', async () => {
    const response = await fetch(`${open.url}/trpc/models.list`, { headers: { origin: open.url } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('auth helpers', () => {
  it('checks the bearer header in constant time', () => {
    expect(checkBearer(undefined, null)).toEqual({ required: false, provided: false, valid: true });
    expect(checkBearer(undefined, 'a')).toEqual({ required: true, provided: false, valid: false });
    expect(checkBearer('Bearer a', 'a')).toEqual({ required: true, provided: true, valid: true });
    expect(checkBearer('bearer   a', 'a').valid).toBe(true);
    expect(checkBearer('Bearer ab', 'a').valid).toBe(false);
    expect(checkBearer('Basic a', 'a')).toEqual({ required: true, provided: true, valid: false });
    expect(sameSecret('x', 'x')).toBe(true);
    expect(sameSecret('x', 'xy')).toBe(false);
  });

  it('labels the user from X-Weft-User, bounded', () => {
    expect(userLabel(undefined)).toBeNull();
    expect(userLabel('  ada ')).toBe('ada');
    expect(userLabel('a\u0000b\nc')).toBe('abc');
    expect(userLabel('x'.repeat(500))).toHaveLength(100);
  });

  it('needs no token on loopback, generates a stable one beyond it, prefers WEFT_TOKEN', async () => {
    expect(isLoopback('127.0.0.1') && isLoopback('::1') && isLoopback('localhost')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
    const data = join(dir, 'token-test');
    expect(await resolveToken({ host: '127.0.0.1', dataDir: data, env: {} })).toEqual({ token: null, source: 'none' });
    const first = await resolveToken({ host: '0.0.0.0', dataDir: data, env: {} });
    expect(first.source).toBe('generated');
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect((await stat(join(data, 'token'))).mode & 0o777).toBe(0o600);
    expect((await readFile(join(data, 'token'), 'utf8')).trim()).toBe(first.token);
    const second = await resolveToken({ host: '0.0.0.0', dataDir: data, env: {} });
    expect(second).toMatchObject({ source: 'file', token: first.token });
    expect(await resolveToken({ host: '0.0.0.0', dataDir: data, env: { WEFT_TOKEN: 'mine' } })).toEqual({
      token: 'mine',
      source: 'env',
    });
  });
});
