/**
 * The run debugger's calls to the API, in one place: a run's stored events page by page
 * (`runs.eventsPage`), then live ones (`runs.events`, resumed after the last page), and what the
 * run's model turns cost (`runs.costs`).
 */
import { isRunEndEvent, type RunEvent } from '@weft/engine';
import { trpc } from '../trpc.ts';

/** Events per page (the most the API gives): a 1,000-step run (a few thousand events) opens in one request. */
export const PAGE_SIZE = 5000;

export type RunCosts = Awaited<ReturnType<typeof trpc.runs.costs.query>>;
export type StepCost = RunCosts['steps'][string];

/** Every stored event of a run after `after`, a page at a time. */
export async function* eventPages(runId: string, after = 0, signal?: { aborted: boolean }): AsyncGenerator<RunEvent[]> {
  let from = after;
  for (;;) {
    const page = await trpc.runs.eventsPage.query({ runId, after: from, limit: PAGE_SIZE });
    if (signal?.aborted) return;
    if (page.events.length > 0) yield page.events as RunEvent[];
    if (page.nextAfter === null || page.nextAfter === undefined || page.events.length === 0) return;
    from = page.nextAfter;
  }
}

/** Every stored event of a run (a child run expanded on the timeline). */
export async function loadEvents(runId: string): Promise<RunEvent[]> {
  try {
    const all: RunEvent[] = [];
    for await (const page of eventPages(runId)) all.push(...page);
    return all;
  } catch {
    return streamedEvents(runId);
  }
}

/** The events so far through the subscription (a server without pages): until the run's end, or a quiet moment. */
function streamedEvents(runId: string, quietMs = 400): Promise<RunEvent[]> {
  return new Promise((resolve, reject) => {
    const all: RunEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      subscription.unsubscribe();
      resolve(all);
    };
    const subscription = trpc.runs.events.subscribe(
      { runId, lastEventId: null },
      {
        onData: (envelope) => {
          const event = envelope.data as RunEvent;
          all.push(event);
          clearTimeout(timer);
          if (isRunEndEvent(event)) done();
          else timer = setTimeout(done, quietMs);
        },
        onComplete: done,
        onError: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      },
    );
    timer = setTimeout(done, quietMs * 5);
  });
}

export function runCosts(runId: string): Promise<RunCosts> {
  return trpc.runs.costs.query({ runId });
}
