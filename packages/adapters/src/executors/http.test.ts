import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Json, NonRetryableError } from '@weft/engine';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('node:dns/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:dns/promises')>();
  const lookup = (host: string, options: object) =>
    host === 'public.example' ? Promise.resolve([{ address: '93.184.216.34', family: 4 }]) : real.lookup(host, options);
  return { ...real, lookup, default: { ...real, lookup } };
});

import { isPrivateAddress } from './http.ts';
import { createExecutorRegistry, type ExecutorOptions } from './index.ts';

let server: Server;
let base: string;
const seen: { method: string; url: string; headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url === '/json') {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ ok: true, n: 1 }));
      } else if (req.url === '/text') {
        res.writeHead(200, { 'content-type': 'text/plain', 'x-request-id': 'abc' });
        res.end('hello');
      } else if (req.url === '/missing') {
        res.writeHead(404, { 'content-type': 'application/problem+json' });
        res.end(JSON.stringify({ title: 'not found' }));
      } else if (req.url === '/echo') {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, type: req.headers['content-type'], body }));
      } else if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(64 * 1024));
      } else if (req.url === '/redirect') {
        res.writeHead(302, { location: '/json' });
        res.end();
      } else if (req.url === '/hang') {
        // never answers
      } else {
        res.writeHead(500);
        res.end('unexpected');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function request(
  input: { method?: string; url: string; headers?: Record<string, string>; body?: Json },
  options: ExecutorOptions = { http: { allowPrivateNetwork: true } },
  signal = new AbortController().signal,
) {
  const registry = createExecutorRegistry({ env: {}, ...options });
  return registry.execute(
    {
      kind: 'http',
      input: { method: input.method ?? 'GET', url: input.url, headers: input.headers ?? {}, body: input.body },
    },
    { signal, runId: 'run-1', stepId: 'fetch', emitDelta: () => {} },
  );
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the request to fail');
}

describe('http executor', () => {
  it('refuses loopback addresses by default, naming the address and the way to allow it', async () => {
    const error = await failure(request({ url: `${base}/json` }, {}));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toMatch(/refused: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback\/private/);
    expect(error.message).toMatch(/WEFT_HTTP_ALLOW_PRIVATE=1/);
  });

  it('refuses host names that resolve to loopback, and IPv4-mapped IPv6 loopback', async () => {
    const port = new URL(base).port;
    expect((await failure(request({ url: `http://localhost:${port}/json` }, {}))).message).toMatch(/refused/);
    expect((await failure(request({ url: `http://[::ffff:127.0.0.1]:${port}/json` }, {}))).message).toMatch(/refused/);
    expect((await failure(request({ url: `http://[::1]:${port}/json` }, {}))).message).toMatch(/refused/);
  });

  it('allows private addresses with allowPrivateNetwork or WEFT_HTTP_ALLOW_PRIVATE=1', async () => {
    expect(await request({ url: `${base}/json` })).toMatchObject({ status: 200, body: { ok: true, n: 1 } });
    const viaEnv = await request({ url: `${base}/json` }, { env: { WEFT_HTTP_ALLOW_PRIVATE: '1' } });
    expect(viaEnv).toMatchObject({ status: 200 });
  });

  it('returns text bodies as text, with the response headers', async () => {
    const result = (await request({ url: `${base}/text` })) as { status: number; headers: Record<string, string> };
    expect(result).toMatchObject({ status: 200, body: 'hello' });
    expect(result.headers['x-request-id']).toBe('abc');
  });

  it('hands non-2xx responses to the flow instead of failing', async () => {
    expect(await request({ url: `${base}/missing` })).toMatchObject({ status: 404, body: { title: 'not found' } });
  });

  it('sends an object body as JSON and a string body as is', async () => {
    const json = await request({ method: 'post', url: `${base}/echo`, body: { a: 1 } });
    expect(json).toMatchObject({ status: 201, body: { method: 'POST', type: 'application/json', body: '{"a":1}' } });
    const text = await request({
      method: 'PUT',
      url: `${base}/echo`,
      body: 'raw=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(text).toMatchObject({ body: { method: 'PUT', type: 'application/x-www-form-urlencoded', body: 'raw=1' } });
  });

  it('caps the response size with a clear error', async () => {
    const error = await failure(
      request({ url: `${base}/big` }, { http: { allowPrivateNetwork: true, maxResponseBytes: 1024 } }),
    );
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toMatch(/response is larger than the 1024 bytes limit/);
  });

  it('follows redirects', async () => {
    expect(await request({ url: `${base}/redirect` })).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('checks every redirect hop against the private-address rule', async () => {
    // A public host (by its DNS answer) that redirects to loopback must not reach loopback.
    const realFetch = globalThis.fetch;
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (url, init) => {
      if (String(url).startsWith('http://public.example/')) {
        return new Response(null, { status: 302, headers: { location: `${base}/json` } });
      }
      return realFetch(url, init);
    });
    try {
      const error = await failure(request({ url: 'http://public.example/start' }, {}));
      expect(error.message).toMatch(/refused: 127\.0\.0\.1/);
      expect(fetchSpy).toHaveBeenCalledTimes(1);
    } finally {
      fetchSpy.mockRestore();
    }
  });

  it('fails with a retryable error when the server cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure(request({ url: `http://127.0.0.1:${port}/` }));
    expect(error).not.toBeInstanceOf(NonRetryableError);
    expect(error.message).toBe(`http GET http://127.0.0.1:${port}/ failed: ECONNREFUSED`);
  });

  it('stops a hanging request when the signal aborts', async () => {
    const error = await failure(request({ url: `${base}/hang` }, undefined, AbortSignal.timeout(100)));
    expect(error.message).toMatch(/timed out/);
  });

  it('rejects URLs and methods that cannot work', async () => {
    expect((await failure(request({ url: 'not a url' }))).message).toMatch(/not a valid absolute URL/);
    expect((await failure(request({ url: 'file:///etc/passwd' }))).message).toMatch(/must use http: or https:/);
    expect((await failure(request({ url: `${base}/json`, body: { a: 1 } }))).message).toMatch(
      /GET request cannot have a body/,
    );
  });
});

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd12:3456::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:10.0.0.1', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    ['2606:4700:4700::1111', false],
    ['::ffff:8.8.8.8', false],
  ])('%s → %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});
