/** `weft runs cancel <runId>`: cancels a run and its child runs. */

import { type Command, parseCommandArgs } from '../../args.ts';
import { readEnv } from '../../context.ts';
import { EXIT, stdout } from '../../output.ts';
import { SERVER_OPTION, SERVER_USAGE, serverUrl } from '../../remote.ts';
import { openRunAccess } from '../../run-access.ts';

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
    const runs = await openRunAccess({ server: serverUrl(args.values.server), env: readEnv() });
    try {
      return await runs.cancel(args.positionals[0]!);
    } finally {
      await runs.close();
    }
  },
};
