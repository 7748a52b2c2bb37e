/**
 * `runs.get` answers with the state of the first page of a run's events (the server bounds it
 * by bytes, run-pages.ts); what needs the whole state follows the rest through `runs.eventsPage`
 * and folds it in with the engine's reducer, a page at a time.
 */
import { applyEvent, type RunEvent, type RunState } from '@weft/engine';
import type { Remote } from './remote.ts';

export async function getFullRun(remote: Remote, runId: string) {
  const got = await remote.call((c) => c.runs.get.query({ runId }));
  let state = got.state as RunState;
  let after = got.nextAfter;
  while (after !== null) {
    const from = after;
    const page = await remote.call((c) => c.runs.eventsPage.query({ runId, after: from }));
    for (const event of page.events) state = applyEvent(state, event as RunEvent);
    after = page.nextAfter;
  }
  return { ...got, state, nextAfter: null };
}
