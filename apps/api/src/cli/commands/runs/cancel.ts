/** `weft runs cancel <runId>`: cancels a run and its child runs. */

import type { ExternalBackendName } from '@weft/adapters/backends';
import type { RunStore } from '@weft/adapters/store';
import { isFinalStatus } from '@weft/engine';
import { type Command, parseCommandArgs } from '../../args.ts';
import { openCliRuntime, openStoreFromEnv, readEnv } from '../../context.ts';
import { BACKEND_LABEL, isExternalBackend } from '../../external.ts';
import { EXIT, stderr, stdout } from '../../output.ts';
import { connect, SERVER_OPTION, SERVER_USAGE, serverUrl } from '../../remote.ts';
import { getRunOrFail } from '../../tree.ts';

/** How long to wait for the engine's side to record the cancellation of an external run. */
const CANCEL_WAIT_MS = 10_000;

const usage = `Usage: weft runs cancel <runId>

Cancels a run that has not ended, and its child runs. A process executing it stops within
a few seconds (when it next renews its claim on the run).

Options:
${SERVER_USAGE}
  -h, --help  show this help`;

export const runsCancelCommand: Command = {
  name: 'cancel',
  summary: 'cancel a run (and its child runs)',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: { ...SERVER_OPTION },
      positionals: { min: 1, max: 1, names: '<runId>' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const server = serverUrl(args.values.server);
    if (server) {
      const remote = connect(server);
      const { run } = await remote.call((c) => c.runs.get.query({ runId: args.positionals[0]! }));
      if (isFinalStatus(run.status)) {
        stderr.write(`run ${run.id} already ${run.status}; nothing to cancel\n`);
        return EXIT.ok;
      }
      const result = await remote.call((c) => c.runs.cancel.mutate({ runId: run.id }));
      stderr.write(`${stderr.style('bold', '■ cancelled')} run ${result.runId} (${result.status})\n`);
      return EXIT.ok;
    }
    const env = readEnv();
    const store = await openStoreFromEnv(env);
    const run = await getRunOrFail(store, args.positionals[0]!).catch(async (error) => {
      await store.close();
      throw error;
    });
    if (isFinalStatus(run.status)) {
      await store.close();
      stderr.write(`run ${run.id} already ${run.status}; nothing to cancel\n`);
      return EXIT.ok;
    }
    const runtime = await openCliRuntime({
      env,
      store,
      external: isExternalBackend(run.backend) ? [run.backend] : [],
    });
    try {
      await runtime.service.cancel(run.id);
      if (isExternalBackend(run.backend)) return await awaitCancelled(store, run.backend, run.id);
      stderr.write(`${stderr.style('bold', '■ cancelled')} run ${run.id}\n`);
      return EXIT.ok;
    } finally {
      await runtime.close();
    }
  },
};

/**
 * The engine owns the run and is asked to cancel it: a Temporal workflow records run.cancelled
 * itself when a worker next runs it; Inngest runs none of the function's code, so its backend
 * records it at once.
 */
async function awaitCancelled(store: RunStore, name: ExternalBackendName, runId: string): Promise<number> {
  const deadline = Date.now() + CANCEL_WAIT_MS;
  while (Date.now() < deadline) {
    const run = await store.getRun(runId);
    if (run && isFinalStatus(run.status)) {
      stderr.write(`${stderr.style('bold', '■ cancelled')} run ${runId} (${run.status})\n`);
      return EXIT.ok;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  stderr.write(`cancellation of run ${runId} requested; ${BACKEND_LABEL[name]} ends it when the run next executes\n`);
  return EXIT.ok;
}
