/**
 * `weft test [dir]`: runs every saved test case (`weft runs save-test`) offline — each call is
 * answered from the case's recordings or refused, so no model, server or sandbox is reached —
 * against the flows as they are now, and prints a line per case as it finishes (the progress of
 * a long suite) with the first difference of a failing one, then a summary.
 */
import { stat, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { type CaseResult, DEFAULT_TESTS_DIR, junitXml, listCaseFiles, runCaseFiles } from '@weft/adapters/testing';
import type { Json } from '@weft/engine';
import { type Command, parseCommandArgs, positiveInt } from '../args.ts';
import { flowSource } from '../context.ts';
import {
  CliError,
  EXIT,
  formatDuration,
  plural,
  printJsonLine,
  redact,
  stderr,
  stdout,
  type Writer,
} from '../output.ts';

/** Nothing could be tested: no such folder, no cases in it, no flows folder. */
const NOTHING_TESTED = 2;

const usage = `Usage: weft test [dir|file] [--flows <dir>] [--junit <file>] [--timeout <s>] [--json]

Runs the test cases in a folder (default ${DEFAULT_TESTS_DIR}/; every *.json there is a case saved by
\`weft runs save-test\`) offline: every model turn, tool, http and code call and child run is
answered from the case's recordings, and one the recordings cannot answer (the flow or its
input changed) fails the case. Each case runs the current version of its flow.

Options:
  --flows <dir>    where the flows are, by id (default: the folder above the tests folder)
  --junit <file>   also write the results as JUnit XML (for CI)
  --timeout <s>    fail a case whose run has not ended after this many seconds (default 60;
                   sleeps in a flow really wait)
  --json           print the results as one JSON object (the per-case lines go to stderr)
  -h, --help       show this help

Exit status: 0 every case passed, 1 a case failed or could not run, 2 nothing to test (no
such folder, no cases, no flows folder), 64 a usage mistake.`;

export const testCommand: Command = {
  name: 'test',
  summary: 'run the saved test cases offline',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: {
        flows: { type: 'string' },
        junit: { type: 'string' },
        json: { type: 'boolean' },
        timeout: { type: 'string' },
      },
      positionals: { min: 0, max: 1, names: '[dir]' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const target = args.positionals[0] ?? DEFAULT_TESTS_DIR;
    const json = args.values.json === true;
    const timeout = positiveInt(args.values.timeout, '--timeout', usage);
    const folder = await testsFolder(target);
    const flowsDir = args.values.flows ?? dirname(folder);
    const files = await listCaseFiles(target).catch((error: Error) => {
      throw new CliError(`cannot read ${target}: ${error.message}`, NOTHING_TESTED);
    });
    if (files.length === 0) throw new CliError(`no test cases (*.json) in ${target}`, NOTHING_TESTED);
    const flows = await flowSource(flowsDir).catch((error: Error) => {
      throw new CliError(error.message, NOTHING_TESTED);
    });

    // Per-case lines are the report; with --json they are progress, and stdout holds the object.
    const lines = json ? stderr : stdout;
    stderr.write(
      `running ${plural(files.length, 'test case')} from ${shown(folder)} against the flows in ${shown(flowsDir)}\n`,
    );
    const started = performance.now();
    const results = await runCaseFiles(files, {
      flows,
      flowsLabel: shown(flowsDir),
      label: shown,
      ...(timeout !== undefined ? { timeoutMs: timeout * 1000 } : {}),
      onResult: (result, index, total) => lines.write(resultLine(lines, result, index, total)),
    });
    const elapsed = performance.now() - started;
    const failed = results.filter((result) => !result.passed);
    const broken = results.filter((result) => result.error !== undefined).length;
    const summary =
      `${plural(results.length, 'case')}: ${results.length - failed.length} passed, ${failed.length} failed` +
      `${broken ? ` (${broken} could not run)` : ''} · ${formatDuration(elapsed)}`;
    lines.write(`${lines.style(failed.length === 0 ? 'green' : 'red', summary)}\n`);

    if (args.values.junit) {
      try {
        await writeFile(args.values.junit, junitXml(results));
      } catch (error) {
        throw new CliError(`cannot write ${args.values.junit}: ${(error as Error).message}`);
      }
      stderr.write(`wrote JUnit XML to ${args.values.junit}\n`);
    }
    if (json)
      printJsonLine({
        passed: failed.length === 0,
        total: results.length,
        failed: failed.length,
        durationMs: Math.round(elapsed),
        results: results as unknown as Json[],
      });
    return failed.length === 0 ? EXIT.ok : EXIT.failed;
  },
};

/** The folder the cases are in (the target itself, or the folder of a single case file). */
async function testsFolder(target: string): Promise<string> {
  try {
    return (await stat(target)).isDirectory() ? resolve(target) : dirname(resolve(target));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      code === 'ENOENT'
        ? `no tests folder ${target} (save a run into it: weft runs save-test <runId>)`
        : `cannot read ${target}: ${(error as Error).message}`,
      NOTHING_TESTED,
    );
  }
}

function resultLine(out: Writer, result: CaseResult, index: number, total: number): string {
  const counter = `${String(index + 1).padStart(String(total).length)}/${total}`;
  const mark = result.passed
    ? out.style('green', '✓')
    : result.error !== undefined
      ? out.style('yellow', '!')
      : out.style('red', '✗');
  const head = `${mark} ${counter} ${result.name} (${result.file}, ${formatDuration(result.durationMs)})\n`;
  const why = result.error ?? result.firstDifference;
  return why === undefined ? head : `${head}      ${redact(why)}\n`;
}

/** A path as the person typed it: relative to the working directory. */
function shown(path: string): string {
  return relative(process.cwd(), resolve(path)) || '.';
}
