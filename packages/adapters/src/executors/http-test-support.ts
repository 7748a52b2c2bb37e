/**
 * What the http executor tests share: a loopback fixture server with fixed answers, a recording
 * server whose answers a test chooses, and one http call through the executor registry.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Json } from '@weft/engine';
import { afterAll, beforeAll } from 'vitest';
import { createExecutorRegistry, type ExecutorOptions } from './index.ts';

/** A request the fixture server received. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: Record<string, unknown>;
  body: string;
}

/**
 * The loopback server most tests call: one fixed answer per path (/json, /text, /missing, /echo,
 * /big, /redirect; /hang never answers), recording every request in `seen`.
 */
export async function startFixtureServer() {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
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
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type FixtureServer = Awaited<ReturnType<typeof startFixtureServer>>;

/** A loopback server that records every request; `answer` may write a response, else 200 JSON. */
export async function startServer(answer?: (path: string, res: ServerResponse) => boolean) {
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

/** One http call through the registry; private addresses are allowed unless `options` say otherwise. */
export function request(
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

export { failure } from './test-support.ts';

/** For a test file: the fixture server, started before its tests and closed after them. */
export function useFixtureServer(): { readonly fixture: FixtureServer; readonly base: string } {
  let started: FixtureServer | undefined;
  beforeAll(async () => {
    started = await startFixtureServer();
  });
  afterAll(() => started?.close());
  const fixture = (): FixtureServer => {
    if (!started) throw new Error('the fixture server starts in beforeAll');
    return started;
  };
  return {
    get fixture() {
      return fixture();
    },
    get base() {
      return fixture().url;
    },
  };
}
