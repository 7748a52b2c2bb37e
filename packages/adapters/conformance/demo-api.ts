/**
 * The small HTTP API the examples call (`{{ input.apiBase }}/…`). The conformance suite starts
 * one on a random loopback port per adapter; `node packages/adapters/conformance/demo-api.ts`
 * serves it on port 8787 so the examples also run from the CLI without internet.
 *
 * Answers are deterministic, with one deliberate exception: the first `POST /jobs` for a job id
 * drops the connection, so the `submit` step of status-poll shows a retry.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const DEMO_API_PORT = 8787;

/** Polls it takes before a job is done (`?poll=` is the 0-based poll index). Job "stuck" never is. */
export const JOB_READY_AFTER_POLLS = 2;

const CORPUS = [
  {
    title: 'Renewables 2023: solar capacity',
    url: 'https://example.org/iea/renewables-2023',
    snippet: 'Installed solar PV capacity reached 1597 GW in 2023, up from 1177 GW in 2022.',
  },
  {
    title: 'Wind market outlook',
    url: 'https://example.org/gwec/wind-2023',
    snippet: 'Global wind capacity passed 1000 GW in 2023.',
  },
  {
    title: 'Battery storage costs',
    url: 'https://example.org/bnef/storage',
    snippet: 'Lithium-ion pack prices fell 14% in 2023 to a record low.',
  },
];

const ARTICLES = [
  {
    id: 'a1',
    title: 'Weft 0.1 ships',
    body: 'The first release runs flows in process with SQLite. Temporal and Inngest adapters follow.',
  },
  {
    id: 'a2',
    title: 'Durable agents',
    body: 'Each model call is a checkpointed step. A crash in turn seven re-runs only turn seven.',
  },
  {
    id: 'a3',
    title: 'Offline tests',
    body: 'Recorded model turns replace the provider. Any past run becomes a regression test.',
  },
];

export interface DemoApi {
  /** e.g. "http://127.0.0.1:41234" (no trailing slash). */
  readonly baseUrl: string;
  close(): Promise<void>;
}

export async function startDemoApi(port = 0): Promise<DemoApi> {
  const submitted = new Set<string>();
  const attempts = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    handle(request, response, { submitted, attempts }).catch((error: unknown) => {
      send(response, 500, { error: String(error) });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

interface State {
  submitted: Set<string>;
  attempts: Map<string, number>;
}

async function handle(request: IncomingMessage, response: ServerResponse, state: State): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://demo.local');
  const path = url.pathname;
  if (request.method === 'GET' && path === '/search') {
    const words = (url.searchParams.get('q') ?? '')
      .toLowerCase()
      .split(/[\s+]+/)
      .filter(Boolean);
    const results = CORPUS.filter((doc) => words.some((word) => doc.title.toLowerCase().includes(word)));
    return send(response, 200, { query: url.searchParams.get('q'), results });
  }
  if (request.method === 'GET' && path === '/articles') return send(response, 200, { articles: ARTICLES });
  if (request.method === 'POST' && path === '/jobs') {
    const body = JSON.parse((await readBody(request)) || '{}') as { jobId?: string; report?: string };
    const jobId = String(body.jobId ?? '');
    const attempt = (state.attempts.get(jobId) ?? 0) + 1;
    state.attempts.set(jobId, attempt);
    // A flaky upstream: the first attempt per job loses its connection (a retryable failure).
    if (attempt === 1) {
      request.socket.destroy();
      return;
    }
    state.submitted.add(jobId);
    return send(response, 202, { id: jobId, report: body.report ?? null, status: 'queued' });
  }
  const job = /^\/jobs\/([\w-]+)$/.exec(path);
  if (request.method === 'GET' && job) {
    const id = job[1]!;
    if (!state.submitted.has(id)) return send(response, 404, { error: `no job ${id}` });
    const poll = Number(url.searchParams.get('poll') ?? '0');
    const done = id !== 'stuck' && poll >= JOB_READY_AFTER_POLLS;
    return send(response, 200, {
      id,
      status: done ? 'done' : 'running',
      polls: poll + 1,
      ...(done ? { result: { rows: 1284, file: `reports/${id}.csv` } } : {}),
    });
  }
  send(response, 404, { error: `no route ${request.method} ${path}` });
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

if (import.meta.main) {
  const api = await startDemoApi(Number(process.env.PORT ?? DEMO_API_PORT));
  console.log(`demo API on ${api.baseUrl} (Ctrl-C to stop)`);
}
