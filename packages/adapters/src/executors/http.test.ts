import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { interpret, type Json, NonRetryableError, type RunEventInput, type StepHost, validateFlow } from '@weft/engine';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// The resolver seam: answers queued per host name (one list of addresses per lookup, the last
// one repeating), else the real resolver. `lookups` records every name looked up.
const dns = vi.hoisted(() => ({ answers: new Map<string, string[][]>(), lookups: [] as string[] }));
vi.mock('node:dns/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:dns/promises')>();
  const lookup = (host: string, options: object) => {
    dns.lookups.push(host);
    const queued = dns.answers.get(host);
    if (queued && queued.length > 0) {
      const answer = queued.length > 1 ? queued.shift()! : queued[0]!;
      return Promise.resolve(answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    }
    return real.lookup(host, options);
  };
  return { ...real, lookup, default: { ...real, lookup } };
});

// A fake public first hop: fetching a URL held here answers 302 to its location, no network.
const fakeRedirects = vi.hoisted(() => new Map<string, string>());
vi.mock('undici', async (importOriginal) => {
  const real = await importOriginal<typeof import('undici')>();
  const fetch: typeof real.fetch = (input, init) => {
    const location = fakeRedirects.get(String(input));
    if (location === undefined) return real.fetch(input, init);
    return Promise.resolve(new real.Response(null, { status: 302, headers: { location } }));
  };
  return { ...real, fetch };
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

  it.each([
    ['an address', () => `${base}/json`],
    ['a name', () => `http://localhost:${new URL(base).port}/json`],
  ])('checks every redirect hop against the private-address rule: a hop to %s', async (_what, location) => {
    // A public first hop (faked, see `fakeRedirects`) that redirects to loopback must not reach loopback.
    fakeRedirects.set('http://public.example/start', location());
    const before = seen.length;
    try {
      const error = await failure(request({ url: 'http://public.example/start' }, {}));
      expect(error).toBeInstanceOf(NonRetryableError);
      expect(error.message).toMatch(/refused: (127\.0\.0\.1|localhost) resolves to 127\.0\.0\.1/);
      expect(seen.length).toBe(before);
    } finally {
      fakeRedirects.clear();
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

/** A documentation-range address (TEST-NET-3): public by the rules, never a real server. */
const PUBLIC_TEST_ADDRESS = '203.0.113.10';

/** A loopback server that records every request; `answer` may write a response, else 200 JSON. */
async function startServer(answer?: (path: string, res: ServerResponse) => boolean) {
  const received: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    received.push({ path: req.url ?? '', headers: req.headers });
    req.resume();
    if (answer?.(req.url ?? '', res)) return;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ from: 'loopback' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('DNS rebinding', () => {
  it('connects to the address it checked, not to a second, loopback answer', async () => {
    const target = await startServer();
    // First answer public, every later one loopback: a check and a connect that each resolve
    // the name would check the public address and connect to the loopback one.
    dns.answers.set('localhost', [[PUBLIC_TEST_ADDRESS], ['127.0.0.1']]);
    dns.lookups.length = 0;
    try {
      // Reaching the public address may answer, fail or time out; it must not reach loopback.
      await request({ url: `http://localhost:${target.port}/private` }, {}, AbortSignal.timeout(2000)).catch(
        () => undefined,
      );
      expect(target.received).toEqual([]);
      expect(dns.lookups.filter((host) => host === 'localhost')).toEqual(['localhost']);
    } finally {
      dns.answers.delete('localhost');
      await target.close();
    }
  });

  it('refuses a name that answers a public and a loopback address together, naming host and address', async () => {
    const target = await startServer();
    dns.answers.set('localhost', [[PUBLIC_TEST_ADDRESS, '127.0.0.1']]);
    try {
      const error = await failure(request({ url: `http://localhost:${target.port}/private` }, {}));
      expect(error).toBeInstanceOf(NonRetryableError);
      expect(error.message).toMatch(/refused: localhost resolves to 127\.0\.0\.1, a loopback\/private/);
      expect(target.received).toEqual([]);
    } finally {
      dns.answers.delete('localhost');
      await target.close();
    }
  });
});

describe('credentials', () => {
  const credentials = {
    authorization: 'Bearer a-secret',
    'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
    cookie: 'sid=s-secret',
    'x-api-key': 'k-secret',
    'api-key': 'k2-secret',
    'x-auth-token': 't-secret',
    'x-client-secret': 'c-secret',
  };
  const plain = { accept: 'application/json', 'x-trace-id': 'trace-1' };

  it('drops every credential header on a cross-origin 307 and keeps them on a same-origin one', async () => {
    const other = await startServer();
    const first = await startServer((path, res) => {
      const location = path === '/to-other' ? `${other.url}/landing` : path === '/to-same' ? '/landing' : undefined;
      if (location === undefined) return false;
      res.writeHead(307, { location });
      res.end();
      return true;
    });
    try {
      const headers = { ...credentials, ...plain };
      expect(await request({ url: `${first.url}/to-other`, headers })).toMatchObject({ status: 200 });
      expect(other.received.map((r) => r.path)).toEqual(['/landing']);
      const forwarded = other.received[0]!.headers;
      expect(Object.keys(credentials).filter((name) => name in forwarded)).toEqual([]);
      expect(forwarded).toMatchObject(plain);

      expect(await request({ url: `${first.url}/to-same`, headers })).toMatchObject({ status: 200 });
      expect(first.received.map((r) => r.path)).toEqual(['/to-other', '/to-same', '/landing']);
      expect(first.received[2]!.headers).toMatchObject({ ...credentials, ...plain });
    } finally {
      await other.close();
      await first.close();
    }
  });

  it('never puts a header value in an error message', async () => {
    const error = await failure(request({ url: `${base}/json`, headers: { authorization: 'Bearer sec\nret-value' } }));
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(error.message).toMatch(/header "authorization"/);
    expect(error.message).not.toMatch(/Bearer|ret-value/);
  });

  it('never puts URL userinfo or query in an error message', async () => {
    const withUserinfo = await failure(
      request({ url: `${base.replace('//', '//bob:pw-secret@')}/json?token=q-secret` }),
    );
    expect(withUserinfo).toBeInstanceOf(NonRetryableError);
    expect(withUserinfo.message).toMatch(/must not carry credentials/);
    const unparsable = await failure(request({ url: 'http://bob:pw-secret@bad host/?token=q-secret' }));
    expect(unparsable.message).toMatch(/not a valid absolute URL: "http:\/\/bad host\/"/);
    for (const error of [withUserinfo, unparsable]) expect(error.message).not.toMatch(/pw-secret|q-secret/);
  });
});

describe('http step events', () => {
  it('shows credential headers as [redacted] on step.started while the server gets the real values', async () => {
    const target = await startServer();
    const registry = createExecutorRegistry({ env: {}, http: { allowPrivateNetwork: true } });
    const events: RunEventInput[] = [];
    const unused = () => Promise.reject(new Error('not used by this flow'));
    const host: StepHost = {
      run: (id, call) =>
        registry.execute(call, { signal: new AbortController().signal, runId: 'run-1', stepId: id, emitDelta() {} }),
      waitForApproval: unused,
      sleep: unused,
      spawn: unused,
      emit: (event) => events.push(event),
    };
    const headers = {
      authorization: 'Bearer {{ input.apiToken }}',
      cookie: 'sid=cookie-secret',
      'x-api-key': 'key-secret',
      'x-upstream': 'Bearer {{ input.apiToken }}',
      accept: 'application/json',
    };
    const validated = validateFlow({
      irVersion: 1,
      id: 'call-api',
      name: 'Call an API',
      steps: [{ id: 'call', type: 'http', url: `${target.url}/hook`, headers }],
    });
    if (!validated.ok) throw new Error(JSON.stringify(validated.errors));
    try {
      await interpret(validated.flow, { apiToken: 'token-secret' }, host);
      const started = events.find((event) => event.type === 'step.started');
      expect(started).toEqual({
        type: 'step.started',
        stepId: 'call',
        stepType: 'http',
        input: {
          method: 'GET',
          url: `${target.url}/hook`,
          headers: {
            authorization: '[redacted]',
            cookie: '[redacted]',
            'x-api-key': '[redacted]',
            'x-upstream': '[redacted]',
            accept: 'application/json',
          },
        },
      });
      expect(JSON.stringify(events)).not.toMatch(/secret/);
      expect(target.received[0]!.headers).toMatchObject({
        authorization: 'Bearer token-secret',
        cookie: 'sid=cookie-secret',
        'x-api-key': 'key-secret',
        'x-upstream': 'Bearer token-secret',
        accept: 'application/json',
      });
    } finally {
      await target.close();
    }
  });
});
