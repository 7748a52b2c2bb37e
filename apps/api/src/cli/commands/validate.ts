/**
 * `weft validate <flow.json>`: every problem at once, each naming its JSON path and step.
 * Spawn targets and spawn cycles are checked against the flows in `--flows` (default: the flow
 * file's own folder).
 */
import { dirname } from 'node:path';
import { type ValidationIssue, validateFlow } from '@weft/engine';
import { type Command, parseCommandArgs } from '../args.ts';
import { flowSource } from '../context.ts';
import { readJsonFile } from '../files.ts';
import { CliError, EXIT, plural, printJsonLine, stdout } from '../output.ts';
import { connect, SERVER_OPTION, SERVER_USAGE, serverUrl } from '../remote.ts';

const usage = `Usage: weft validate <flow.json> [--flows <dir>] [--json]

Checks a flow document: schema, step ids, expressions, references, spawn targets and cycles.

Options:
  --flows <dir>  where spawned flows are found (default: the flow file's folder)
  --json         print { "ok": true } or { "ok": false, "errors": [{ "stepId", "path", "message" }] }
${SERVER_USAGE}
                 (checks against the server's flows with flows.validate)
  -h, --help     show this help

Exit status: 0 valid, 1 invalid or unreadable.`;

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check a flow file and list every problem',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: { flows: { type: 'string' }, json: { type: 'boolean' }, ...SERVER_OPTION },
      positionals: { min: 1, max: 1, names: '<flow.json>' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const file = args.positionals[0]!;
    const json = args.values.json === true;
    const server = serverUrl(args.values.server);
    let doc: unknown;
    let flows: ReadonlyMap<string, unknown> = new Map();
    try {
      doc = await readJsonFile(file, 'flow file');
      if (!server) flows = await (await flowSource(args.values.flows ?? dirname(file))).documents();
    } catch (error) {
      if (!(error instanceof CliError) || !json) throw error;
      printJsonLine({ ok: false, errors: [{ stepId: null, path: '(file)', message: error.message }] });
      return EXIT.failed;
    }
    const result: { ok: true; flow?: { id: string } } | { ok: false; errors: ValidationIssue[] } = server
      ? await connect(server).call((c) => c.flows.validate.query({ doc }))
      : validateFlow(doc, { flows });
    if (json) {
      printJsonLine(result.ok ? { ok: true } : { ok: false, errors: result.errors });
      return result.ok ? EXIT.ok : EXIT.failed;
    }
    if (result.ok) {
      stdout.write(`${stdout.style('green', '✓')} ${result.flow?.id ?? (doc as { id?: string }).id ?? file}: valid\n`);
      return EXIT.ok;
    }
    const id = typeof (doc as { id?: unknown })?.id === 'string' ? (doc as { id: string }).id : file;
    stdout.write(`${stdout.style('red', '✗')} ${id}: ${plural(result.errors.length, 'problem')}\n`);
    stdout.write(formatIssues(result.errors));
    return EXIT.failed;
  },
};

/** `  steps[1].id (step b): duplicate step id 'b' (first used at steps[0])`, one per line. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues
    .map((issue) => `  ${issue.path}${issue.stepId ? ` (step ${issue.stepId})` : ''}: ${issue.message}\n`)
    .join('');
}
