/**
 * `weft runs list`: runs newest first, filtered and full-text searched by the store's database
 * (here, or a server's through `runs.search`), with duration, tokens and cost per run. Both paths
 * go through the same search and pricing (server/run-summaries.ts), so they print the same.
 */
import { isFinalStatus, parseDuration, RUN_STATUSES, type RunStatus } from '@weft/engine';
import { type SearchInput, searchRunSummaries } from '../../../server/run-summaries.ts';
import { type Command, parseCommandArgs, positiveInt } from '../../args.ts';
import { openStoreFromEnv } from '../../context.ts';
import { EXIT, formatDateTime, formatDuration, printJsonLine, stdout, table, UsageError } from '../../output.ts';
import { connect, SERVER_OPTION, SERVER_USAGE, serverUrl } from '../../remote.ts';

const usage = `Usage: weft runs list [filters] [--search <text>] [--all] [--limit <n>] [--json]

Options:
  --flow <id>          only runs of this flow
  --version <n>        only runs of this flow version
  --status <s,...>     only runs in these statuses: ${RUN_STATUSES.join(', ')} (repeatable)
  --backend <b,...>    only runs on these backends: inprocess, temporal, inngest (repeatable)
  --since <when>       only runs created at or after <when>: an ISO date or time
                       (2026-01-05, 2026-01-05T14:00) or a time ago (30m, 2h, 7d)
  --until <when>       only runs created before <when> (same forms)
  --search <text>      only runs whose input, output or error message has every word
                       (each a word prefix, any case), searched by the database
  --all                include child runs (of spawn steps and flow tools)
  --limit <n>          at most n runs (default 20, at most 200)
  --json               print the runs as one JSON array
${SERVER_USAGE}
  -h, --help           show this help`;

const MAX_LIMIT = 200;

export const runsListCommand: Command = {
  name: 'list',
  summary: 'list and search runs',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: {
        flow: { type: 'string' },
        version: { type: 'string' },
        status: { type: 'string', multiple: true },
        backend: { type: 'string', multiple: true },
        since: { type: 'string' },
        until: { type: 'string' },
        search: { type: 'string' },
        all: { type: 'boolean' },
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
    const { values } = args;
    const statuses = commaList(values.status) as RunStatus[] | undefined;
    for (const status of statuses ?? []) {
      if (!RUN_STATUSES.includes(status)) {
        throw new UsageError(`unknown status '${status}'; one of: ${RUN_STATUSES.join(', ')}`, usage);
      }
    }
    const limit = positiveInt(values.limit, '--limit', usage) ?? 20;
    if (limit > MAX_LIMIT) throw new UsageError(`--limit must be at most ${MAX_LIMIT}`, usage);
    const version = positiveInt(values.version, '--version', usage);
    const now = Date.now();
    const since = values.since === undefined ? undefined : pointInTime(values.since, '--since', now);
    const until = values.until === undefined ? undefined : pointInTime(values.until, '--until', now);
    if (since !== undefined && until !== undefined && since >= until) {
      throw new UsageError('--until must be after --since', usage);
    }
    if (values.search !== undefined && values.search.length > 200) {
      throw new UsageError('--search must be at most 200 characters', usage);
    }
    const backends = commaList(values.backend);
    const input: SearchInput = {
      limit,
      rootOnly: values.all !== true,
      ...(values.flow ? { flowId: values.flow } : {}),
      ...(version !== undefined ? { flowVersion: version } : {}),
      ...(statuses ? { status: statuses } : {}),
      ...(backends ? { backend: backends } : {}),
      ...(since !== undefined ? { since } : {}),
      ...(until !== undefined ? { until } : {}),
      ...(values.search !== undefined ? { text: values.search } : {}),
    };
    const server = serverUrl(values.server);
    const store = server ? undefined : await openStoreFromEnv();
    try {
      const { runs, nextCursor } = server
        ? await connect(server).call((c) => c.runs.search.query(input))
        : await searchRunSummaries(store!, input);
      if (values.json === true) {
        printJsonLine(
          runs.map((run) => ({
            runId: run.id,
            flowId: run.flowId,
            flowVersion: run.flowVersion,
            status: run.status,
            backend: run.backend,
            handoff: run.handoff,
            parentRunId: run.parentRunId,
            createdAt: run.createdAt,
            updatedAt: run.updatedAt,
            durationMs: run.durationMs,
            tokens: run.tokens,
            costUsd: run.costUsd,
            unpricedModels: run.unpricedModels,
          })),
        );
        return EXIT.ok;
      }
      if (runs.length === 0) {
        const filtered = Object.keys(input).some((key) => key !== 'limit' && key !== 'rootOnly');
        stdout.write(filtered ? 'no runs match\n' : 'no runs yet — start one with `weft run <flow.json>`\n');
        return EXIT.ok;
      }
      const rows = runs.map((run) => [
        run.id,
        `${run.flowId}@${run.flowVersion}`,
        colourStatus(run.status),
        // A handed-off run shows where it started and where it went on.
        run.handoff && run.backend !== 'inprocess' ? `inprocess→${run.backend}` : run.backend,
        formatDateTime(run.createdAt),
        run.durationMs !== null || isFinalStatus(run.status)
          ? formatDuration(run.durationMs)
          : `${formatDuration(now - run.createdAt)}…`,
        run.tokens === null ? '—' : `${formatTokens(run.tokens.input)}→${formatTokens(run.tokens.output)}`,
        formatCost(run.costUsd, run.unpricedModels),
      ]);
      const bold = (text: string) => stdout.style('bold', text);
      stdout.write(table(['RUN', 'FLOW', 'STATUS', 'BACKEND', 'STARTED', 'DURATION', 'TOKENS', 'COST'], rows, bold));
      if (nextCursor !== null) stdout.write(stdout.style('gray', `(more runs: raise --limit or narrow the filters)\n`));
      return EXIT.ok;
    } finally {
      await store?.close();
    }
  },
};

/** Repeatable, comma-separated values as one list (undefined when not given). */
function commaList(values: string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  return values
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

/** An ISO date or time, or a duration ago ("2h"), as ms epoch; a usage error naming the flag otherwise. */
export function pointInTime(text: string, flag: string, now: number): number {
  const ago = parseDuration(text);
  if (ago !== undefined) return now - ago;
  const at = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) {
    throw new UsageError(
      `${flag} must be an ISO date or time (2026-01-05, 2026-01-05T14:00) or a time ago (30m, 2h, 7d), got '${text}'`,
      usage,
    );
  }
  return at;
}

/** 340, 1.2k, 3.4M: a column's worth. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** "$0.0123"; "?" when nothing could be priced; "+?" when some models had no price. */
export function formatCost(usd: number | null, unpriced: readonly string[] = []): string {
  if (usd === null) return unpriced.length > 0 ? '?' : '—';
  const amount = usd === 0 ? '$0' : usd < 0.0001 ? `$${usd.toPrecision(2)}` : `$${usd.toFixed(4)}`;
  return unpriced.length > 0 ? `${amount}+?` : amount;
}

export function colourStatus(status: RunStatus): string {
  const style = ({ completed: 'green', failed: 'red', cancelled: 'gray', waiting: 'yellow', running: 'cyan' } as const)[
    status
  ];
  return stdout.style(style, status);
}
