/**
 * `weft approve <runId> <stepId> yes|no`: decides through the run service — exactly one
 * decision wins, whichever process makes it — and continues the run here (or follows it on
 * its engine), streaming progress like `weft run`.
 * The approval may sit in a child run (a spawned flow): the child continues, and its end wakes
 * the parent. Given the parent's id, the child holding the approval is found.
 */

import { cliDecider, parseVerdict, terminalIsInteractive } from '../approvals.ts';
import { type Command, parseCommandArgs } from '../args.ts';
import { readEnv } from '../context.ts';
import { BusyError } from '../follow.ts';
import { EXIT, stderr, stdout, UsageError } from '../output.ts';
import { SERVER_OPTION, SERVER_USAGE, serverUrl } from '../remote.ts';
import { openRunAccess } from '../run-access.ts';

const usage = `Usage: weft approve <runId> <stepId> yes|no [--comment <text>] [--by <name>] [--json]

Decides a pending approval and continues the run in this process.

Options:
  --comment <text>  a note kept with the decision
  --by <name>       who decided (default: the OS user name)
  --flows <dir>     where \`spawn\` finds flows (default: the folder the run was started with)
  --json            print { "runId", "status", "output" } as the last line of stdout
${SERVER_USAGE}
  -h, --help        show this help

Exit status: 0 completed, 1 failed or already decided, 2 parked again.`;

export const approveCommandSpec: Command = {
  name: 'approve',
  summary: 'decide a pending approval and continue the run',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: {
        comment: { type: 'string' },
        by: { type: 'string' },
        flows: { type: 'string' },
        json: { type: 'boolean' },
        ...SERVER_OPTION,
      },
      positionals: { min: 3, max: 3, names: '<runId> <stepId> yes|no' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const [runId, stepId, verdictText] = args.positionals as [string, string, string];
    const approved = parseVerdict(verdictText);
    if (approved === undefined) throw new UsageError(`the decision must be yes or no, got '${verdictText}'`, usage);
    const runs = await openRunAccess({
      server: serverUrl(args.values.server),
      env: readEnv(),
      flowsDir: args.values.flows,
      decider: cliDecider(new Map(), terminalIsInteractive()),
    });
    try {
      const steered = await runs.approve(runId, stepId, {
        approved,
        by: args.values.by,
        comment: args.values.comment,
      });
      if (typeof steered === 'number') return steered;
      try {
        return await runs.follow(steered.rootRunId, {
          json: args.values.json === true,
          decider: cliDecider(new Map(), terminalIsInteractive()),
          after: steered.after,
          ...(steered.targetRunId ? { targetRunId: steered.targetRunId } : {}),
        });
      } catch (error) {
        if (!(error instanceof BusyError)) throw error;
        // The decision is recorded; the process holding the run sees it when it next looks.
        stderr.write(
          `${stderr.style('yellow', '!')} the decision is recorded, but run ${steered.targetRunId ?? runId} is being executed by another live process, which continues it\n`,
        );
        return EXIT.parked;
      }
    } finally {
      await runs.close();
    }
  },
};
