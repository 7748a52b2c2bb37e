/**
 * Shared helpers for the server's tests: services over a temporary SQLite store, callers with
 * the trusted context, the same services over real HTTP, a few flows, and waiting for a run to
 * reach a status.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject, RunStatus } from '@weft/engine';
import { afterAll, beforeAll } from 'vitest';
import { trustedContext } from './context.ts';
import { type RunningServer, startServer } from './http.ts';
import { createCaller } from './router.ts';
import { type ApiServices, createServices, type ServiceOptions } from './services.ts';

export interface TestServer {
  services: ApiServices;
  dir: string;
  /** A caller as `user` (null: anonymous, decisions are by 'api'); `signal` reaches subscriptions. */
  caller(user?: string | null, signal?: AbortSignal): ReturnType<typeof createCaller>;
  close(): Promise<void>;
}

export async function testServices(options: Omit<ServiceOptions, 'dataDir'> = {}): Promise<TestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-api-'));
  const services = await createServices({ env: { NODE_ENV: 'test' }, ...options, dataDir: dir });
  return {
    services,
    dir,
    caller: (user = null, signal) => createCaller(trustedContext(services, user), signal ? { signal } : {}),
    async close() {
      await services.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read loosely in tests
export type HttpAnswer = { status: number; body: any };

/** The API server of a test file on a loopback port: what a client sends goes through its JSON parsing. */
export interface HttpTestServer {
  readonly services: ApiServices;
  readonly url: string;
  /** POSTs `body`, exactly as written, to a procedure. */
  post(procedure: string, body: string): Promise<HttpAnswer>;
  /** POSTs `input` as JSON to a procedure. */
  call(procedure: string, input: unknown): Promise<HttpAnswer>;
  /** GETs a query procedure, `input` (when given) as JSON in the address. */
  query(procedure: string, input?: unknown): Promise<HttpAnswer>;
}

/**
 * For a test file: `testServices` behind the real HTTP server, started before its tests
 * (before the file's own `beforeAll`s, which may use it) and closed after them.
 */
export function useHttpServer(): HttpTestServer {
  let test: TestServer | undefined;
  let running: RunningServer | undefined;
  beforeAll(async () => {
    test = await testServices();
    running = await startServer({ services: test.services, host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await running?.close();
    await test?.close();
  });
  const started = () => {
    if (!test || !running) throw new Error('the test server starts in beforeAll');
    return { services: test.services, url: running.url };
  };
  const answer = async (response: Response): Promise<HttpAnswer> => ({
    status: response.status,
    body: JSON.parse(await response.text()),
  });
  const post = async (procedure: string, body: string) =>
    answer(
      await fetch(`${started().url}/trpc/${procedure}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }),
    );
  return {
    get services() {
      return started().services;
    },
    get url() {
      return started().url;
    },
    post,
    call: (procedure, input) => post(procedure, JSON.stringify(input)),
    async query(procedure, input) {
      const search = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
      return answer(await fetch(`${started().url}/trpc/${procedure}${search}`));
    },
  };
}

/** Polls the store until the run has one of `statuses`. */
export async function waitForStatus(
  services: ApiServices,
  runId: string,
  statuses: RunStatus[],
  timeoutMs = 10_000,
): Promise<RunStatus> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = await services.store.getRun(runId);
    if (run && statuses.includes(run.status)) return run.status;
    if (Date.now() > until) throw new Error(`run ${runId} is ${run?.status ?? 'missing'}, not ${statuses.join('/')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Polls until the run has a pending approval at `stepId`. */
export async function waitForApproval(services: ApiServices, runId: string, stepId: string, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const approval = await services.store.getApproval(runId, stepId);
    const run = await services.store.getRun(runId);
    if (approval?.status === 'pending' && run?.status === 'waiting') return approval;
    if (Date.now() > until) throw new Error(`run ${runId} has no pending approval at ${stepId}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Collects an async iterable until it ends (or `limit` items). */
export async function collect<T>(iterable: AsyncIterable<T>, limit = Number.POSITIVE_INFINITY): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) {
    out.push(item);
    if (out.length >= limit) break;
  }
  return out;
}

/** An IR document as the flow store saves it. */
export type FlowDoc = JsonObject & { id: string; name: string };

const nameInput = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
};

/** Greets: input `{ name }`, output the greeting. */
export const greetFlow: FlowDoc = {
  irVersion: 1,
  id: 'greet',
  name: 'Greet',
  input: nameInput,
  steps: [{ id: 'hello', type: 'transform', value: { greeting: '=input.name' } }],
  output: '=steps.hello.output',
};

/** Waits for an approval between two steps. */
export const approvalFlow: FlowDoc = {
  irVersion: 1,
  id: 'ship',
  name: 'Ship it',
  input: nameInput,
  steps: [
    { id: 'prepare', type: 'transform', value: { name: '=input.name' } },
    { id: 'gate', type: 'approval', prompt: 'Ship {{ input.name }}?' },
    { id: 'done', type: 'transform', value: { shipped: '=steps.gate.output.approved' } },
  ],
  output: '=steps.done.output',
};

/** A mock model turn (token deltas), then an approval, then another turn. */
export const chattyFlow: FlowDoc = {
  irVersion: 1,
  id: 'chatty',
  name: 'Chatty',
  input: nameInput,
  steps: [
    { id: 'first', type: 'llm', model: 'mock:echo', prompt: 'Tell me a long story about {{ input.name }} and the sea' },
    { id: 'gate', type: 'approval', prompt: 'Go on?' },
    { id: 'second', type: 'llm', model: 'mock:echo', prompt: 'And then what happened to {{ input.name }}?' },
  ],
};
