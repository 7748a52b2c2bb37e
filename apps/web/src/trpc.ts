/**
 * The one tRPC client: same-origin `/trpc` (Vite proxies it in dev). Queries and mutations go
 * batched over HTTP; subscriptions over SSE. A bearer token, when the user stored one under
 * `weft.token`, goes on every request — SSE included, which needs the fetch-based EventSource
 * because the browser's own cannot send headers.
 */
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '@weft/api/router';
import { EventSource as FetchEventSource } from 'eventsource';

export const TOKEN_KEY = 'weft.token';

function token(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

/** The bearer header for the stored token, if any (also sent by the chat's plain HTTP calls). */
export function authHeaders(): Record<string, string> {
  const value = token();
  return value ? { Authorization: `Bearer ${value}` } : {};
}

const url = '/trpc';

export const trpc = createTRPCClient<AppRouter>({
  links: [
    splitLink({
      condition: (op) => op.type === 'subscription',
      true: token()
        ? httpSubscriptionLink({
            url,
            EventSource: FetchEventSource,
            eventSourceOptions: {
              fetch: (input, init) =>
                fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...authHeaders() } }),
            },
          })
        : httpSubscriptionLink({ url }),
      false: httpBatchLink({ url, headers: authHeaders }),
    }),
  ],
});

/** An engine problem pinned to a step, as the API's errorFormatter sends it in `data.flowErrors`. */
export interface FlowError {
  stepId: string | null;
  path: string;
  message: string;
}

export function flowErrorsOf(error: unknown): FlowError[] {
  if (!(error instanceof TRPCClientError)) return [];
  const data = error.data as { flowErrors?: FlowError[] } | undefined;
  return data?.flowErrors ?? [];
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The fields a BAD_REQUEST names (`data.issues`, one per field, dotted paths), if any. */
export function issuesOf(error: unknown): { path: string; message: string }[] {
  if (!(error instanceof TRPCClientError)) return [];
  const data = error.data as { issues?: { path: string; message: string }[] } | undefined;
  return Array.isArray(data?.issues) ? data.issues : [];
}

/** An error for people: each named field with its problem, else the server's message. */
export function describeError(error: unknown): string {
  const issues = issuesOf(error);
  if (issues.length > 0)
    return issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
  return messageOf(error);
}
