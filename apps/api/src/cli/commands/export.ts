/**
 * `weft export <flow.json> --target weft|inngest|temporal [-o <path>]`: the flow as TypeScript,
 * formatted; stdout without -o. `weft` is the code-first API (it imports back), `inngest` a plain
 * Inngest function, `temporal` a workflow file and an activities file. With -o a one-file target
 * writes that file; a multi-file target treats -o as a folder and writes every file into it. On
 * stdout a multi-file target prints each file under a `// ---- <path>` line. Secrets are never
 * written: literal credentials in headers become process.env reads.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exportFlowFiles, isExportTarget, TARGETS } from '@weft/codegen';
import { validateFlow } from '@weft/engine';
import { type Command, parseCommandArgs } from '../args.ts';
import { readJsonFile } from '../files.ts';
import { CliError, EXIT, stdout, UsageError } from '../output.ts';
import { formatIssues } from './validate.ts';

const usage = `Usage: weft export <flow.json> --target <name> [-o <file.ts | folder>]

Writes the flow as TypeScript. \`weft import\` reads the weft target back.

Targets:
  weft      the code-first API (defineFlow); one file
  inngest   a plain Inngest function (inngest v4); one file
  temporal  a Temporal workflow and its activities; two files, so -o names a folder

Options:
  --target <name>  ${Object.keys(TARGETS).join(', ')} (required)
  -o, --out <path> write here instead of stdout (a folder for temporal)
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
    const files = await exportFlowFiles(result.flow, target);
    const out = args.values.out;
    if (files.length === 1) {
      const source = files[0]!.contents;
      if (out === undefined) stdout.write(source);
      else await writeFile(out, source);
    } else if (out === undefined) {
      stdout.write(files.map((f) => `// ---- ${f.path}\n${f.contents}`).join('\n'));
    } else {
      await mkdir(out, { recursive: true });
      for (const f of files) await writeFile(join(out, f.path), f.contents);
    }
    return EXIT.ok;
  },
};
