/**
 * The events subscription over real HTTP/SSE: a client loses its connection mid-run, reconnects
 * with its last event id, and ends with exactly the run's stored event sequence.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import type { RunEvent } from '@weft/engine';
import { EventSource } from 'eventsource';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { trustedContext } from '../context.ts';
import { type AppRouter, appRouter } from '../router.ts';
import { approvalFlow, type TestServer, testServices, waitForApproval } from '../test-support.ts';

let server: TestServer;
let http: Server;
let url: string;
let connections = 0;

beforeEach(async () => {
  server = await testServices();
  await server.services.store.flows.save(approvalFlow);
  const handler = createHTTPHandler({ router: appRouter, createContext: () => trustedContext(server.services) });
  http = createServer((req, res) => {
    if (req.url?.startsWith('/trpc')) {
      req.url = req.url.slice('/trpc'.length) || '/';
      handler(req, res);
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  http.on('connection', () => connections++);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/trpc`;
});

afterEach(async () => {
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
  await server.close();
});

it('resumes from the last event id after a dropped connection: nothing lost, nothing twice', async () => {
  const client = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({ url, EventSource }),
        false: httpLink({ url }),
      }),
    ],
  });
  const { runId } = await client.runs.start.mutate({ flowId: 'ship', input: { name: 'B' } });
  await waitForApproval(server.services, runId, 'gate');

  const seen: { id: string; event: RunEvent }[] = [];
  const errors: unknown[] = [];
  let complete!: () => void;
  const completed = new Promise<void>((resolve) => {
    complete = resolve;
  });
  const subscription = client.runs.events.subscribe(
    { runId, lastEventId: null },
    {
      onData: (item) => seen.push({ id: item.id, event: item.data as RunEvent }),
      onError: (error) => errors.push(error),
      onComplete: () => complete(),
    },
  );

  // Mid-run: the replayed part has arrived and the run waits for its approval.
  await expect.poll(() => seen.some(({ event }) => event.type === 'approval.requested')).toBe(true);
  const before = seen.length;
  const connectionsBefore = connections;
  http.closeAllConnections();
  // The rest of the run happens while the client is cut off.
  await server.caller('alice').approvals.decide({ runId, stepId: 'gate', approved: true });

  await Promise.race([
    completed,
    new Promise((_, reject) => setTimeout(() => reject(new Error('the stream did not end')), 20_000)),
  ]);
  subscription.unsubscribe();

  const stored = await server.services.store.readEvents(runId);
  expect(stored.at(-1)?.type).toBe('run.completed');
  expect(seen.length).toBeGreaterThan(before);
  expect(connections).toBeGreaterThan(connectionsBefore);
  expect(seen.map(({ id }) => id)).toEqual(stored.map((event) => String(event.seq)));
  expect(seen.map(({ event }) => [event.seq, event.type])).toEqual(stored.map((event) => [event.seq, event.type]));
  expect(seen.map(({ event }) => event)).toEqual(stored);
  expect(errors).toEqual([]);

  // The server keeps serving: an unknown run is a clear NOT_FOUND over HTTP too.
  const failure = await new Promise<unknown>((resolve) => {
    const sub = client.runs.events.subscribe(
      { runId: 'run_nope' },
      {
        onError: (error) => {
          sub.unsubscribe();
          resolve(error);
        },
        onData: () => resolve(new Error('unexpected data')),
      },
    );
  });
  expect((failure as { data?: { code?: string } }).data?.code).toBe('NOT_FOUND');
});
