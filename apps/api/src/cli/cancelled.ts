/** After asking an external engine to cancel a run: wait a little for its side to record it. */
import type { ExternalBackendName } from '@weft/adapters/backends';
import { type RunStore, waitForEnd } from '@weft/adapters/store';
import { BACKEND_LABEL } from './external.ts';
import { EXIT, stderr } from './output.ts';

/** How long to wait for the engine's side to record the cancellation of an external run. */
const CANCEL_WAIT_MS = 10_000;

/**
 * A Temporal workflow records run.cancelled itself when a worker next runs it; Inngest runs
 * none of the function's code, so its backend records it at once.
 */
export async function awaitCancelled(store: RunStore, name: ExternalBackendName, runId: string): Promise<number> {
  // Woken by the run's commits (its run.cancelled), here or in another process.
  const run = await waitForEnd(store, runId, CANCEL_WAIT_MS);
  if (run) {
    stderr.write(`${stderr.style('bold', '■ cancelled')} run ${runId} (${run.status})\n`);
    return EXIT.ok;
  }
  stderr.write(`cancellation of run ${runId} requested; ${BACKEND_LABEL[name]} ends it when the run next executes\n`);
  return EXIT.ok;
}
