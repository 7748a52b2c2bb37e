/**
 * `weft runs save-test <runId>`: a completed run as a test case file (the format is
 * packages/adapters/src/testing/case-format.ts), which `weft test` runs offline. With `--server`
 * the case is built from the server's run (`tests.build`) and written here, like `runs fixtures`.
 */
import { join } from 'node:path';
import { UnknownRunError } from '@weft/adapters/inprocess';
import {
  CaseFileCollisionError,
  caseFileName,
  caseFromRun,
  DEFAULT_TESTS_DIR,
  MATCH_KINDS,
  type MatchKind,
  RunNotCompletedError,
  type TestCase,
  writeCaseFile,
} from '@weft/adapters/testing';
import type { Json } from '@weft/engine';
import { type Command, parseCommandArgs } from '../../args.ts';
import { openStoreFromEnv } from '../../context.ts';
import { readJsonFile } from '../../files.ts';
import { CliError, EXIT, plural, stderr, stdout, UsageError } from '../../output.ts';
import { connect, SERVER_OPTION, SERVER_USAGE, serverUrl } from '../../remote.ts';

const usage = `Usage: weft runs save-test <runId> [-o <file>] [--name <name>] [--match <kinds>] [--schema <file>]

Saves a completed run as a test case: its input, what each model turn, tool call, http call,
code step and child run was answered with, its approval decisions, and the output and steps
it produced. \`weft test\` runs it offline and compares.

Options:
  -o, --output <file>  where to write (default: ${DEFAULT_TESTS_DIR}/<flowId>-<name or short run id>.json)
  --name <name>        the case's name (default: <flowId>-<short run id>)
  --match <kinds>      what must match, comma-separated: ${MATCH_KINDS.join(', ')}
                       (default: steps,output)
  --schema <file>      the JSON Schema output-schema checks (default: one inferred from the
                       output: its types and keys; edit the file to loosen or tighten it)
  --force              replace the file even when it holds another case (two names can
                       give one file) or is not a test case
${SERVER_USAGE}
                       (the case is built from the server's run and written here)
  -h, --help           show this help

Prints the file written.`;

export const runsSaveTestCommand: Command = {
  name: 'save-test',
  summary: 'save a completed run as a test case for `weft test`',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: {
        output: { type: 'string', short: 'o' },
        name: { type: 'string' },
        match: { type: 'string' },
        schema: { type: 'string' },
        force: { type: 'boolean' },
        ...SERVER_OPTION,
      },
      positionals: { min: 1, max: 1, names: '<runId>' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const { values } = args;
    const runId = args.positionals[0]!;
    const name = values.name?.trim();
    if (values.name !== undefined && !name) throw new UsageError('--name must not be empty', usage);
    const match = values.match === undefined ? undefined : parseMatch(values.match);
    const schema = values.schema === undefined ? undefined : await readSchema(values.schema);
    if (schema !== undefined && !(match ?? []).includes('output-schema'))
      throw new UsageError('--schema is for output-schema: add it to --match', usage);

    const server = serverUrl(values.server);
    let built: { file: string; case: TestCase };
    if (server) {
      const remote = connect(server);
      built = await remote.call((client) =>
        client.tests.build.query({ runId, ...(name ? { name } : {}), ...(match ? { match } : {}) }),
      );
    } else built = await buildLocally(runId, name, match);
    const testCase: TestCase =
      schema === undefined ? built.case : { ...built.case, expect: { ...built.case.expect, outputSchema: schema } };
    const path = values.output ?? join(DEFAULT_TESTS_DIR, built.file);
    let replaced: boolean;
    try {
      ({ replaced } = await writeCaseFile(path, testCase, { overwrite: values.force === true }));
    } catch (error) {
      if (error instanceof CaseFileCollisionError) throw new CliError(error.message);
      throw new CliError(`cannot write ${path}: ${(error as Error).message}`);
    }
    const approvals = Object.keys(testCase.approvals).length;
    stderr.write(
      `${replaced ? 'replaced' : 'saved'} test '${testCase.name}' of ${testCase.flow.id}@${testCase.flow.version}: ` +
        `${plural(testCase.recorded.length, 'recorded result')}${approvals ? `, ${plural(approvals, 'approval')}` : ''}; ` +
        `must match ${testCase.match.join(', ')}\n`,
    );
    stdout.write(`${path}\n`);
    return EXIT.ok;
  },
};

async function buildLocally(
  runId: string,
  name: string | undefined,
  match: MatchKind[] | undefined,
): Promise<{ file: string; case: TestCase }> {
  const store = await openStoreFromEnv();
  try {
    const testCase = await caseFromRun(store, runId, { ...(name ? { name } : {}), ...(match ? { match } : {}) });
    return { file: caseFileName(testCase.flow.id, name, runId), case: testCase };
  } catch (error) {
    if (error instanceof UnknownRunError) throw new CliError(`unknown run '${runId}' (see \`weft runs list\`)`);
    if (error instanceof RunNotCompletedError) throw new CliError(error.message);
    throw error;
  } finally {
    await store.close();
  }
}

function parseMatch(text: string): MatchKind[] {
  const kinds = text
    .split(',')
    .map((kind) => kind.trim())
    .filter(Boolean);
  const unknown = kinds.filter((kind) => !(MATCH_KINDS as readonly string[]).includes(kind));
  if (kinds.length === 0 || unknown.length > 0)
    throw new UsageError(
      `--match takes ${MATCH_KINDS.join(', ')} (comma-separated)${unknown.length ? `, not '${unknown.join("', '")}'` : ''}`,
      usage,
    );
  return [...new Set(kinds)] as MatchKind[];
}

async function readSchema(file: string): Promise<Record<string, Json> | boolean> {
  const schema = await readJsonFile(file, 'schema file');
  if (typeof schema === 'boolean' || (typeof schema === 'object' && schema !== null && !Array.isArray(schema)))
    return schema as Record<string, Json> | boolean;
  throw new CliError(`the schema file ${file} must hold a JSON Schema (an object)`);
}
