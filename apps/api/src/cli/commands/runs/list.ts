/** `weft runs list`: the latest runs, newest first, child runs included. */
import { isFinalStatus, RUN_STATUSES, type RunStatus } from '@weft/engine';
import { type Command, parseCommandArgs, positiveInt } from '../../args.ts';
import { openStoreFromEnv } from '../../context.ts';
import { EXIT, formatDateTime, formatDuration, printJsonLine, stdout, table, UsageError } from '../../output.ts';
import { connect, SERVER_OPTION, SERVER_USAGE, serverUrl } from '../../remote.ts';

const usage = `Usage: weft runs list [--flow <id>] [--status <status>] [--limit <n>] [--json]

Options:
  --flow <id>        only runs of this flow
  --status <status>  only runs in this status: ${RUN_STATUSES.join(', ')} (repeatable)
  --limit <n>        at most n runs (default 20)
  --json             print the runs as one JSON array
${SERVER_USAGE}
  -h, --help         show this help`;

export const runsListCommand: Command = {
  name: 'list',
  summary: 'list recent runs',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: {
        flow: { type: 'string' },
        status: { type: 'string', multiple: true },
        limit: { type: 'string' },
        json: { type: 'boolean' },
        ...SERVER_OPTION,
      },
      positionals: { min: 0, max: 0, names: '' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const statuses = args.values.status?.flatMap((s) => s.split(',')) as RunStatus[] | undefined;
    for (const status of statuses ?? []) {
      if (!RUN_STATUSES.includes(status)) {
        throw new UsageError(`unknown status '${status}'; one of: ${RUN_STATUSES.join(', ')}`, usage);
      }
    }
    const limit = positiveInt(args.values.limit, '--limit', usage) ?? 20;
    const server = serverUrl(args.values.server);
    const store = server ? undefined : await openStoreFromEnv();
    try {
      const filter = {
        ...(args.values.flow ? { flowId: args.values.flow } : {}),
        ...(statuses ? { status: statuses } : {}),
        limit,
      };
      const runs = server
        ? await connect(server).call((c) => c.runs.list.query(filter))
        : await store!.listRuns(filter);
      if (args.values.json === true) {
        printJsonLine(
          runs.map((run) => ({
            runId: run.id,
            flowId: run.flowId,
            flowVersion: run.flowVersion,
            status: run.status,
            backend: run.backend,
            parentRunId: run.parentRunId,
            createdAt: run.createdAt,
            updatedAt: run.updatedAt,
            durationMs: isFinalStatus(run.status) ? run.updatedAt - run.createdAt : null,
          })),
        );
        return EXIT.ok;
      }
      if (runs.length === 0) {
        stdout.write('no runs yet — start one with `weft run <flow.json>`\n');
        return EXIT.ok;
      }
      const rows = runs.map((run) => [
        run.id,
        `${run.flowId}@${run.flowVersion}`,
        colourStatus(run.status),
        run.backend,
        formatDateTime(run.createdAt),
        isFinalStatus(run.status)
          ? formatDuration(run.updatedAt - run.createdAt)
          : `${formatDuration(Date.now() - run.createdAt)}…`,
      ]);
      const bold = (text: string) => stdout.style('bold', text);
      stdout.write(table(['RUN', 'FLOW', 'STATUS', 'BACKEND', 'STARTED', 'DURATION'], rows, bold));
      return EXIT.ok;
    } finally {
      await store?.close();
    }
  },
};

export function colourStatus(status: RunStatus): string {
  const style = ({ completed: 'green', failed: 'red', cancelled: 'gray', waiting: 'yellow', running: 'cyan' } as const)[
    status
  ];
  return stdout.style(style, status);
}
