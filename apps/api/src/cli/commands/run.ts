/**
 * `weft run <flow.json>`: starts a run through the run service (in this process, or on Temporal
 * or Inngest with this process executing it while the command lasts), streaming progress to
 * stderr. Exit 0 completed, 1 failed, 2 parked (an approval nobody here could decide).
 */
import { dirname } from 'node:path';
import { FIRST_TOOL_CALL, type Fixtures, HANDOFF_TARGETS, type Json } from '@weft/engine';
import { configuredBackends } from '../../backends.ts';
import { cliDecider, parseApproveFlags, terminalIsInteractive } from '../approvals.ts';
import { type Command, parseCommandArgs } from '../args.ts';
import { readEnv } from '../context.ts';
import { isExternalBackend, notConfigured } from '../external.ts';
import { readFlowFile, readInputArg, readJsonFile } from '../files.ts';
import { CliError, EXIT, plural, stderr, stdout, UsageError } from '../output.ts';
import { SERVER_OPTION, SERVER_USAGE, serverUrl } from '../remote.ts';
import { openRunAccess, RunRefused } from '../run-access.ts';

export const BACKENDS = ['inprocess'] as const;

/** What the CLI can run on here: the external engines this environment configures (../backends.ts). */
export function availableBackends(): string[] {
  return [...BACKENDS, ...configuredBackends(process.env)];
}

const usage = `Usage: weft run <flow.json> [options]

Runs a flow in this process (durably: the run survives a crash and can be resumed).
The flow file is flow JSON, or TypeScript in the shape \`weft export --target weft\` writes
(imported first; problems are listed as file.ts:LINE:COL).

Options:
  --input <json|@file>       the run input (default {})
  --flows <dir>              where \`spawn\` finds other flows by id (default: the flow file's folder)
  --fixtures <file>          recorded model turns to use instead of providers (see \`weft runs fixtures\`)
  --approve <stepId>=yes|no  decide an approval in advance (repeatable)
  --handoff <engine>@<point> start in-process (first tokens at once) and continue on temporal
                             or inngest at first-tool-call or at a step id, e.g.
                             temporal@first-tool-call (default: the flow's own \`handoff\`)
  --backend <name>           inprocess (default), temporal or inngest:
                               temporal needs TEMPORAL_ADDRESS; a worker runs in this process
                               unless WEFT_TEMPORAL_WORKER=external
                               inngest needs INNGEST_DEV or INNGEST_BASE_URL; this process
                               serves the function while the command lasts (on a port kept in
                               WEFT_DATA/backends/) unless WEFT_INNGEST_SERVE=external. Set that
                               when a \`weft serve\` on the same Inngest server and store serves
                               it (it syncs its app again whenever it starts): two apps would
                               each start every run
  --json                     print { "runId", "status", "output" } as the last line of stdout
                             (runId null and status "invalid" when no run could start)
${SERVER_USAGE}
                             (the flow file is imported there: a new flow or a new version)
  -h, --help                 show this help

Approvals without --approve are asked at the terminal when there is one; otherwise the run
parks and the command prints how to resolve it (\`weft approve <runId> <stepId> yes|no\`).

Exit status: 0 completed, 1 failed, 2 parked waiting for an approval.`;

export const runCommand: Command = {
  name: 'run',
  summary: 'run a flow here, streaming progress',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: {
        input: { type: 'string' },
        flows: { type: 'string' },
        fixtures: { type: 'string' },
        approve: { type: 'string', multiple: true },
        backend: { type: 'string' },
        handoff: { type: 'string' },
        json: { type: 'boolean' },
        ...SERVER_OPTION,
      },
      positionals: { min: 1, max: 1, names: '<flow.json>' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const { values } = args;
    const backend = values.backend ?? 'inprocess';
    const backends = availableBackends();
    // On a server, the server says which engines it has.
    if (!serverUrl(values.server) && !backends.includes(backend)) {
      const why = isExternalBackend(backend) ? ` (${notConfigured(backend)})` : '';
      throw new UsageError(`unknown backend '${backend}'; the CLI can run on: ${backends.join(', ')}${why}`, usage);
    }
    const handoff = values.handoff === undefined ? undefined : parseHandoff(values.handoff);
    if (handoff && backend !== 'inprocess')
      throw new UsageError(
        `--handoff starts the run in-process and hands it to ${handoff.to}: leave out --backend ${backend}`,
        usage,
      );
    const presets = parseApproveFlags(values.approve ?? [], usage);
    const file = args.positionals[0]!;
    const flowsDir = values.flows ?? dirname(file);
    const env = readEnv();
    const doc = await readFlowFile(file);
    const input = (await readInputArg(values.input, env.maxInputBytes)) as Json;
    const fixtures = values.fixtures ? checkFixtures(await readJsonFile(values.fixtures, 'fixtures file')) : undefined;

    const server = serverUrl(values.server);
    const decider = cliDecider(presets, terminalIsInteractive());
    const runs = await openRunAccess({ server, env, flowsDir, decider });
    try {
      let runId: string;
      try {
        runId = await runs.start({
          doc,
          file,
          input,
          ...(fixtures ? { fixtures } : {}),
          backend,
          ...(handoff ? { handoff } : {}),
        });
      } catch (error) {
        // Scripts reading the last stdout line learn that no run started, and why.
        if (values.json && error instanceof RunRefused && error.invalid)
          stdout.write(
            `${JSON.stringify({ runId: null, status: 'invalid', error: { message: error.detail }, errors: error.issues })}\n`,
          );
        throw error;
      }
      const code = await runs.follow(runId, { json: values.json === true, decider });
      const unused = decider.unused();
      if (unused.length > 0) {
        stderr.write(
          stderr.style(
            'yellow',
            `  note: --approve for ${plural(unused.length, 'step')} no approval asked about: ${unused.join(', ')}\n`,
          ),
        );
      }
      return code;
    } finally {
      await runs.close();
    }
  },
};

/** `--handoff temporal@first-tool-call` or `inngest@<stepId>`; the point is checked against the flow when the run starts. */
export function parseHandoff(text: string): { to: (typeof HANDOFF_TARGETS)[number]; at: string } {
  const at = text.indexOf('@');
  const to = at < 0 ? text : text.slice(0, at);
  const point = at < 0 ? '' : text.slice(at + 1);
  const target = HANDOFF_TARGETS.find((name) => name === to);
  if (!target || point === '')
    throw new UsageError(
      `--handoff must be <engine>@<point>: engine ${HANDOFF_TARGETS.join(' or ')}, point ${FIRST_TOOL_CALL} or a step id (got '${text}')`,
      usage,
    );
  return { to: target, at: point };
}

/** `{ "<llm step path>": [ { text?, toolCalls?, object?, usage? }, … ] }`, checked enough to name what is wrong. */
function checkFixtures(doc: unknown): Fixtures {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new CliError('the fixtures file must be an object: { "<llm step path>": [ { "text": "…" }, … ] }');
  }
  for (const [key, turns] of Object.entries(doc)) {
    if (
      !Array.isArray(turns) ||
      !turns.every((turn) => typeof turn === 'object' && turn !== null && !Array.isArray(turn))
    ) {
      throw new CliError(`fixtures for '${key}' must be an array of turn objects ({ text?, toolCalls?, object? })`);
    }
  }
  return doc as Fixtures;
}
