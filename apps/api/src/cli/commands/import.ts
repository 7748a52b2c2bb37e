/**
 * `weft import <file.ts> [-o flow.json]`: a TypeScript flow in the weft export shape back into
 * flow JSON (stdout without -o). Every problem is listed as `file.ts:LINE:COL message`, and then
 * nothing is written.
 */
import { writeFile } from 'node:fs/promises';
import { importFlow } from '@weft/codegen';
import { type Command, parseCommandArgs } from '../args.ts';
import { formatImportErrors, readText } from '../files.ts';
import { EXIT, stderr, stdout } from '../output.ts';

/** The source is not an importable flow: distinct from a usage error or an unreadable file. */
const NOT_IMPORTABLE = 2;

const usage = `Usage: weft import <file.ts> [-o <flow.json>]

Reads a flow written as TypeScript (the shape \`weft export --target weft\` writes) into flow JSON.

Options:
  -o, --out <file> write here instead of stdout
  -h, --help       show this help

Exit status: 0 imported, 1 unreadable, 2 the file is not an importable flow (nothing written).`;

export const importCommand: Command = {
  name: 'import',
  summary: 'read a TypeScript flow back into flow JSON',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: { out: { type: 'string', short: 'o' } },
      positionals: { min: 1, max: 1, names: '<file.ts>' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const file = args.positionals[0]!;
    const result = importFlow(await readText(file, 'flow file'), file);
    if (!result.ok) {
      stderr.write(`${formatImportErrors(file, result.errors)}\n`);
      return NOT_IMPORTABLE;
    }
    const json = `${JSON.stringify(result.flow, null, 2)}\n`;
    if (args.values.out === undefined) stdout.write(json);
    else await writeFile(args.values.out, json);
    return EXIT.ok;
  },
};
