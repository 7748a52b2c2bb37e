/**
 * Plain-HTTP tRPC calls for specs and benchmarks (the server has no transformer: a query's input
 * is `?input=`, a mutation's the body), and a run's stored events.
 */

export interface RunEventLike {
  seq: number;
  type: string;
  stepId?: string;
  [key: string]: unknown;
}

export async function trpcCall<T>(
  api: string,
  path: string,
  input: unknown,
  method: 'GET' | 'POST' = 'GET',
): Promise<T> {
  const url =
    method === 'GET'
      ? `${api}/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`
      : `${api}/trpc/${path}`;
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(method === 'POST' ? { body: JSON.stringify(input) } : {}),
  });
  const answer = (await response.json()) as { result?: { data: T }; error?: unknown };
  if (!response.ok || !answer.result) throw new Error(`${path}: ${JSON.stringify(answer.error)}`);
  return answer.result.data;
}

/**
 * Every stored event of an ended run, in order — the events the run view's scrubber steps
 * through: `runs.eventsPage` page by page; on a server without it, the `runs.events` stream
 * (which ends after the run's end event).
 */
export async function storedEvents(api: string, runId: string): Promise<RunEventLike[]> {
  const events: RunEventLike[] = [];
  try {
    let after = 0;
    for (;;) {
      const page = await trpcCall<{ events: RunEventLike[]; nextAfter: number | null }>(api, 'runs.eventsPage', {
        runId,
        after,
        limit: 1000,
      });
      events.push(...page.events);
      if (page.nextAfter === null || page.events.length === 0) return events;
      after = page.nextAfter;
    }
  } catch (error) {
    if (!/NOT_FOUND|No procedure/i.test(String((error as Error).message))) throw error;
  }
  return streamedEvents(api, runId);
}

async function streamedEvents(api: string, runId: string): Promise<RunEventLike[]> {
  const abort = AbortSignal.timeout(15_000);
  const response = await fetch(`${api}/trpc/runs.events?input=${encodeURIComponent(JSON.stringify({ runId }))}`, {
    signal: abort,
  });
  if (!response.ok || !response.body) throw new Error(`runs.events: HTTP ${response.status}`);
  const events: RunEventLike[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const message = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      // Tracked messages carry the event's seq as their id; pings and the connection notice do not.
      if (!/^id: /m.test(message)) continue;
      const data = message
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      const event = JSON.parse(data) as RunEventLike;
      events.push(event);
      if (event.type === 'run.completed' || event.type === 'run.failed' || event.type === 'run.cancelled')
        return events;
    }
  }
  return events;
}
