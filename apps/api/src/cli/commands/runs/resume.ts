/**
 * `weft runs resume <runId>`: continues a run after a crash or a restart through the run
 * service (in-process: replayed against its journal here; Temporal and Inngest resume their
 * own runs, and missed decisions are sent again). A run another live process executes is left
 * alone.
 */
import { isFinalStatus } from '@weft/engine';
import { cliDecider, terminalIsInteractive } from '../../approvals.ts';
import { type Command, parseCommandArgs } from '../../args.ts';
import { openCliRuntime, openStoreFromEnv, readEnv, recalledFlowsDir } from '../../context.ts';
import { isExternalBackend } from '../../external.ts';
import { bookmarks, followRunTree } from '../../follow.ts';
import { EXIT, stderr, stdout } from '../../output.ts';
import { connect, followRun, SERVER_OPTION, SERVER_USAGE, serverUrl } from '../../remote.ts';
import { getRunOrFail, rootOf } from '../../tree.ts';

const usage = `Usage: weft runs resume <runId> [--flows <dir>] [--json]

Continues a run after a crash or restart (replay: finished steps are not run again).

Options:
  --flows <dir>  where \`spawn\` finds flows (default: the folder the run was started with)
  --json         print { "runId", "status", "output" } as the last line of stdout
${SERVER_USAGE}
  -h, --help     show this help

Exit status: 0 completed, 1 failed or busy, 2 parked waiting for an approval.`;

export const runsResumeCommand: Command = {
  name: 'resume',
  summary: 'continue a run after a crash or restart',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: { flows: { type: 'string' }, json: { type: 'boolean' }, ...SERVER_OPTION },
      positionals: { min: 1, max: 1, names: '<runId>' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const server = serverUrl(args.values.server);
    if (server) {
      const remote = connect(server);
      const got = await remote.call((c) => c.runs.get.query({ runId: args.positionals[0]! }));
      if (isFinalStatus(got.run.status)) {
        stderr.write(`run ${got.run.id} already ${got.run.status}; nothing to resume\n`);
      } else {
        await remote.call((c) => c.runs.resume.mutate({ runId: got.run.id }));
      }
      return followRun(remote, got.run.id, {
        json: args.values.json === true,
        after: new Map([[got.run.id, got.state.seq]]),
      });
    }
    const env = readEnv();
    const store = await openStoreFromEnv(env);
    const run = await getRunOrFail(store, args.positionals[0]!).catch(async (error) => {
      await store.close();
      throw error;
    });
    const root = await rootOf(store, run);
    if (isFinalStatus(run.status)) stderr.write(`run ${run.id} already ${run.status}; nothing to resume\n`);
    // Resuming the root replays it down into its unfinished child runs, so a crash anywhere in
    // the tree is picked up; a child whose root has ended is resumed on its own.
    const target = isFinalStatus(root.status) ? run : root;
    const flowsDir = args.values.flows ?? (await recalledFlowsDir(env, root.id));
    const decider = cliDecider(new Map(), terminalIsInteractive());
    const runtime = await openCliRuntime({
      env,
      store,
      flowsDir: flowsDir ?? (isExternalBackend(root.backend) ? '.' : undefined),
      decide: decider.decide,
      external: isExternalBackend(root.backend) ? [root.backend] : [],
    });
    try {
      const after = await bookmarks(store, root.id);
      if (!isFinalStatus(target.status)) await runtime.service.resume(target.id);
      return await followRunTree(runtime.service, root.id, {
        after,
        json: args.values.json === true,
        settled: runtime.inprocess.settled(),
        busy: () => runtime.busy(target.id),
      });
    } finally {
      await runtime.close();
    }
  },
};
