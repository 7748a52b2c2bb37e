/**
 * `runs.get` answers with the state of the first page of a run's events (the server bounds it by
 * bytes); what needs the whole state follows the rest through `runs.eventsPage`, folded in with
 * the engine's reducer a page at a time.
 */
import { applyEvent, type RunEvent, type RunState } from '@weft/engine';
import { trpc } from '../trpc.ts';

export async function getFullRun(runId: string) {
  const got = await trpc.runs.get.query({ runId });
  let state = got.state as RunState;
  let after = got.nextAfter;
  while (after !== null) {
    const page = await trpc.runs.eventsPage.query({ runId, after });
    for (const event of page.events) state = applyEvent(state, event as RunEvent);
    after = page.nextAfter;
  }
  return { ...got, state, nextAfter: null };
}
