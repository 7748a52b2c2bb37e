/**
 * `weft runs resume <runId>`: continues a run after a crash or a restart through the run
 * service (in-process: replayed against its journal here; Temporal and Inngest resume their
 * own runs, and missed decisions are sent again). A run another live process executes is left
 * alone.
 */
import { cliDecider, terminalIsInteractive } from '../../approvals.ts';
import { type Command, parseCommandArgs } from '../../args.ts';
import { readEnv } from '../../context.ts';
import { EXIT, stdout } from '../../output.ts';
import { SERVER_OPTION, SERVER_USAGE, serverUrl } from '../../remote.ts';
import { openRunAccess } from '../../run-access.ts';

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
    const decider = cliDecider(new Map(), terminalIsInteractive());
    const runs = await openRunAccess({
      server: serverUrl(args.values.server),
      env: readEnv(),
      flowsDir: args.values.flows,
      decider,
    });
    try {
      const steered = await runs.resume(args.positionals[0]!);
      return await runs.follow(steered.rootRunId, {
        json: args.values.json === true,
        decider,
        after: steered.after,
        ...(steered.targetRunId ? { targetRunId: steered.targetRunId } : {}),
      });
    } finally {
      await runs.close();
    }
  },
};
