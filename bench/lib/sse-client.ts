/**
 * The subscribed HTTP client of bench/api.ts: `@trpc/client` with `httpSubscriptionLink` over
 * the `eventsource` package — what the editor uses (runs.sse.test.ts builds the same). Both are
 * dependencies of apps/api, not of the workspace root, so they are loaded from there; only the
 * few calls used here are typed.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const requireFromApi = createRequire(new URL('../../apps/api/package.json', import.meta.url));

async function load<T>(name: string): Promise<T> {
  return (await import(pathToFileURL(requireFromApi.resolve(name)).href)) as T;
}

export interface TrackedEvent {
  id: string;
  data: unknown;
}

export interface Subscription {
  unsubscribe(): void;
}

export interface EventsClient {
  /** `runs.events` of one run, from its first event. */
  subscribe(
    runId: string,
    handlers: { onData(item: TrackedEvent): void; onError(error: unknown): void; onComplete(): void },
  ): Subscription;
}

interface TrpcClientModule {
  createTRPCClient(options: { links: unknown[] }): {
    runs: {
      events: {
        subscribe(
          input: { runId: string; lastEventId: string | null },
          handlers: { onData(item: TrackedEvent): void; onError(error: unknown): void; onComplete(): void },
        ): Subscription;
      };
    };
  };
  httpSubscriptionLink(options: { url: string; EventSource: unknown }): unknown;
}

/** A tRPC client of the server at `baseUrl` (its `/trpc` endpoint) that only subscribes. */
export async function eventsClient(baseUrl: string): Promise<EventsClient> {
  const trpc = await load<TrpcClientModule>('@trpc/client');
  const { EventSource } = await load<{ EventSource: unknown }>('eventsource');
  const client = trpc.createTRPCClient({
    links: [trpc.httpSubscriptionLink({ url: `${baseUrl}/trpc`, EventSource })],
  });
  return {
    subscribe: (runId, handlers) => client.runs.events.subscribe({ runId, lastEventId: null }, handlers),
  };
}
