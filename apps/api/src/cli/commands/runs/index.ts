/** `weft runs <list|show|resume|replay|diff|fixtures|save-test|cancel>`. */
import type { Command } from '../../args.ts';
import { EXIT, stdout, UsageError } from '../../output.ts';
import { runsCancelCommand } from './cancel.ts';
import { runsDiffCommand } from './diff.ts';
import { runsFixturesCommand } from './fixtures.ts';
import { runsListCommand } from './list.ts';
import { runsReplayCommand } from './replay.ts';
import { runsResumeCommand } from './resume.ts';
import { runsSaveTestCommand } from './save-test.ts';
import { runsShowCommand } from './show.ts';

const subcommands: readonly Command[] = [
  runsListCommand,
  runsShowCommand,
  runsResumeCommand,
  runsReplayCommand,
  runsDiffCommand,
  runsFixturesCommand,
  runsSaveTestCommand,
  runsCancelCommand,
];

const usage = `Usage: weft runs <command> [options]

Commands:
${subcommands.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

Run \`weft runs <command> --help\` for a command's options.`;

export const runsCommand: Command = {
  name: 'runs',
  summary: 'list, inspect, resume, replay, compare, cancel runs; export fixtures; save as tests',
  usage,
  async run(argv) {
    const [name, ...rest] = argv;
    if (name === undefined) throw new UsageError('missing command', usage);
    if (name === '--help' || name === '-h' || name === 'help') {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const command = subcommands.find((c) => c.name === name);
    if (!command) throw new UsageError(`unknown command 'runs ${name}'`, usage);
    return command.run(rest);
  },
};
