/**
 * `weft export <flow.json> --target weft [-o <file>]`: the flow as a TypeScript module (the
 * code-first API), formatted; stdout without -o. Secrets are never written: literal
 * credentials in headers become process.env reads.
 */
import { writeFile } from 'node:fs/promises';
import { exportFlow, isExportTarget, TARGETS } from '@weft/codegen';
import { validateFlow } from '@weft/engine';
import { type Command, parseCommandArgs } from '../args.ts';
import { readJsonFile } from '../files.ts';
import { CliError, EXIT, stdout, UsageError } from '../output.ts';
import { formatIssues } from './validate.ts';

const usage = `Usage: weft export <flow.json> --target weft [-o <file.ts>]

Writes the flow as TypeScript. \`weft import\` reads the weft target back.

Options:
  --target <name>  ${Object.keys(TARGETS).join(', ')} (required)
  -o, --out <file> write here instead of stdout
  -h, --help       show this help

Exit status: 0 written, 1 the flow is invalid or unreadable.`;

export const exportCommand: Command = {
  name: 'export',
  summary: 'write a flow as TypeScript',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: { target: { type: 'string' }, out: { type: 'string', short: 'o' } },
      positionals: { min: 1, max: 1, names: '<flow.json>' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const target = args.values.target;
    if (target === undefined || !isExportTarget(target)) {
      throw new UsageError(`--target must be one of: ${Object.keys(TARGETS).join(', ')}`, usage);
    }
    const file = args.positionals[0]!;
    const result = validateFlow(await readJsonFile(file, 'flow file'));
    if (!result.ok) throw new CliError(`${file} is not a valid flow:\n${formatIssues(result.errors)}`);
    const source = await exportFlow(result.flow, target);
    if (args.values.out === undefined) stdout.write(source);
    else await writeFile(args.values.out, source);
    return EXIT.ok;
  },
};
