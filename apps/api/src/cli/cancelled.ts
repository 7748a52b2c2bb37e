/** After asking an external engine to cancel a run: wait a little for its side to record it. */
import type { ExternalBackendName } from '@weft/adapters/backends';
import { RunFollower, type RunStore } from '@weft/adapters/store';
import { isFinalStatus } from '@weft/engine';
import { BACKEND_LABEL } from './external.ts';
import { EXIT, stderr } from './output.ts';

/** How long to wait for the engine's side to record the cancellation of an external run. */
const CANCEL_WAIT_MS = 10_000;

/**
 * A Temporal workflow records run.cancelled itself when a worker next runs it; Inngest runs
 * none of the function's code, so its backend records it at once.
 */
export async function awaitCancelled(store: RunStore, name: ExternalBackendName, runId: string): Promise<number> {
  const deadline = Date.now() + CANCEL_WAIT_MS;
  // Woken by the run's next commit (its run.cancelled), here or in another process.
  const last = (await store.readEvents(runId)).at(-1)?.seq ?? 0;
  const follower = new RunFollower(store, [[runId, last]]);
  try {
    while (Date.now() < deadline) {
      const run = await store.getRun(runId);
      if (run && isFinalStatus(run.status)) {
        stderr.write(`${stderr.style('bold', '■ cancelled')} run ${runId} (${run.status})\n`);
        return EXIT.ok;
      }
      // The row's status follows its end event within moments: look again soon after either.
      await follower.next({ timeoutMs: Math.min(250, deadline - Date.now()) });
    }
  } finally {
    follower.close();
  }
  stderr.write(`cancellation of run ${runId} requested; ${BACKEND_LABEL[name]} ends it when the run next executes\n`);
  return EXIT.ok;
}
