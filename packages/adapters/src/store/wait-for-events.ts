/**
 * Waiting for a run's next events without polling for them: resolves as soon as this store
 * commits an event of one of `runIds` (`store.onEvents`), or after `backstopMs` — the longest a
 * follower waits for what another process wrote, which this process's feed cannot hear.
 */
import type { RunStore } from './types.ts';

export function waitForEvents(store: RunStore, runIds: ReadonlySet<string>, backstopMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop();
      resolve();
    };
    const stop = store.onEvents((events) => {
      if (events.some((event) => runIds.has(event.runId))) done();
    });
    const timer = setTimeout(done, backstopMs);
  });
}
