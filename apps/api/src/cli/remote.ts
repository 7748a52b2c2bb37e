/**
 * `--server <url>` (or `WEFT_SERVER`): the CLI as a client of a running `weft serve`, over the
 * same tRPC API the editor uses (queries and mutations over HTTP, run events over SSE), so a run
 * started from the terminal shows in the editor. `WEFT_TOKEN` is sent as the bearer token.
 *
 * The local and remote paths share the progress renderer and the summary's wording; what
 * differs is where runs come from: the store and an in-process runner here, the API there.
 */
import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink, TRPCClientError } from '@trpc/client';
import type { Json, RunEvent, RunState } from '@weft/engine';
import { EventSource } from 'eventsource';
import type { AppRouter } from '../server/router.ts';
import { type CliDecider, osUser } from './approvals.ts';
import { messageOf } from './context.ts';
import { CliError, EXIT, formatDuration, plural, printJsonLine, redact, stderr } from './output.ts';
import { ProgressRenderer } from './progress.ts';
import { getFullRun } from './remote-pages.ts';
import { replayFacts, treeStats } from './report.ts';
import { shellQuote } from './tree.ts';

export type ApiClient = ReturnType<typeof createTRPCClient<AppRouter>>;

export interface Remote {
  url: string;
  client: ApiClient;
  /** Runs a call, turning transport and auth failures into clear CLI errors. */
  call<T>(fn: (client: ApiClient) => Promise<T>): Promise<T>;
}

/** The shared `--server` option spec. */
export const SERVER_OPTION = { server: { type: 'string' } } as const;

export const SERVER_USAGE = `  --server <url>             talk to a running \`weft serve\` instead of the local store
                             (default: WEFT_SERVER; token from WEFT_TOKEN)`;

/** The server URL from `--server` or `WEFT_SERVER`, or undefined for the local path. */
export function serverUrl(flag: string | undefined, env: Record<string, string | undefined> = process.env) {
  const url = flag ?? (env.WEFT_SERVER || undefined);
  if (url === undefined) return undefined;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new CliError(`--server must be an http(s) URL, got '${url}'`);
  }
  return url;
}

export function connect(url: string, env: Record<string, string | undefined> = process.env): Remote {
  const base = url.replace(/\/+$/, '');
  const trpcUrl = /\/trpc$/.test(base) ? base : `${base}/trpc`;
  const token = env.WEFT_TOKEN || undefined;
  const headers: Record<string, string> = { 'x-weft-user': osUser() };
  if (token) headers.authorization = `Bearer ${token}`;
  const client = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({
          url: trpcUrl,
          EventSource,
          eventSourceOptions: {
            fetch: (input, init) =>
              fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
          },
        }),
        false: httpLink({ url: trpcUrl, headers }),
      }),
    ],
  });
  const remote: Remote = {
    url,
    client,
    async call(fn) {
      try {
        return await fn(client);
      } catch (error) {
        throw remoteError(url, error);
      }
    },
  };
  return remote;
}

/** A clear CLI error for a failed call: server down, token missing or wrong, or the server's message. */
export function remoteError(url: string, error: unknown): CliError {
  if (error instanceof CliError) return error;
  const code = (error as { data?: { code?: string } }).data?.code;
  if (code === 'UNAUTHORIZED') {
    return new CliError(
      process.env.WEFT_TOKEN
        ? `the server at ${url} refused WEFT_TOKEN: the token is wrong`
        : `the server at ${url} needs a token: set WEFT_TOKEN`,
    );
  }
  if (error instanceof TRPCClientError && code === undefined) {
    const cause = (error.cause as { cause?: { code?: string; message?: string } } | undefined)?.cause;
    const detail = cause?.code ?? cause?.message ?? error.message;
    return new CliError(
      `cannot reach the weft server at ${url} (${redact(String(detail))}); is \`weft serve\` running?`,
    );
  }
  const issues = (error as { data?: { issues?: { path: string; message: string }[] } }).data?.issues;
  const flowErrors = (error as { data?: { flowErrors?: { path: string; stepId: string | null; message: string }[] } })
    .data?.flowErrors;
  let message = redact(messageOf(error));
  if (flowErrors?.length) {
    message = `invalid flow:\n${flowErrors.map((i) => `  ${i.path}${i.stepId ? ` (step ${i.stepId})` : ''}: ${i.message}`).join('\n')}`;
  } else if (issues?.length) {
    message = `${message.split('\n')[0]}\n${issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}`;
  }
  return new CliError(message);
}

export function approveCommandRemote(runId: string, stepId: string, url: string): string {
  return `weft approve ${shellQuote(runId)} ${shellQuote(stepId)} yes|no --server ${shellQuote(url)}`;
}

const END = new Set(['run.completed', 'run.failed', 'run.cancelled']);

interface FollowOptions {
  json: boolean;
  /** Answers approvals: `--approve` presets, else the terminal. */
  decider: CliDecider;
  /** Per run, the seq of the last event already seen (events after it are rendered). */
  after?: ReadonlyMap<string, number>;
  /** More fields for the `--json` line. */
  extra?: Record<string, Json>;
}

/**
 * Follows a run tree's events to its end, or until it parks on an approval nobody here can
 * decide; answers approvals from presets or at the terminal through `approvals.decide`; then
 * prints the summary (and the `--json` line) and returns the exit code.
 */
export async function followRun(remote: Remote, rootRunId: string, options: FollowOptions): Promise<number> {
  const renderer = new ProgressRenderer(stderr, new Map([[rootRunId, '']]));
  const { decider } = options;
  const known = new Set<string>();
  const subscriptions: { unsubscribe(): void }[] = [];
  let failure: unknown;
  let ended = false;

  const subscribe = (runId: string) => {
    if (known.has(runId)) return;
    known.add(runId);
    const after = options.after?.get(runId);
    const sub = remote.client.runs.events.subscribe(
      { runId, lastEventId: after ? String(after) : null },
      {
        onData: ({ data }) => {
          const event = data as RunEvent;
          renderer.handle(event);
          if (event.type === 'child.started') subscribe(event.childRunId);
          if (event.runId === rootRunId && END.has(event.type)) ended = true;
        },
        onError: (error) => {
          failure = error;
        },
      },
    );
    subscriptions.push(sub);
  };
  for (const id of options.after?.keys() ?? []) subscribe(id);
  subscribe(rootRunId);

  const onInterrupt = () => {
    renderer.end();
    stderr.write(
      `\n${stderr.style(['bold', 'yellow'], 'interrupted')}: run ${rootRunId} goes on on the server ${remote.url}\n`,
    );
    process.exit(EXIT.interrupted);
  };
  process.once('SIGINT', onInterrupt);
  const tried = new Set<string>();
  let parked = false;
  let waitingSince: number | null = null;
  try {
    while (!ended && !parked) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      if (failure) throw remoteError(remote.url, failure);
      const { run } = await remote.call((c) => c.runs.get.query({ runId: rootRunId }));
      if (run.status !== 'waiting' && run.status !== 'running') break;
      if (run.status !== 'waiting') {
        waitingSince = null;
        continue;
      }
      waitingSince ??= Date.now();
      const pending = (await remote.call((c) => c.approvals.list.query())).filter((a) => known.has(a.runId));
      let undecided = 0;
      for (const approval of pending) {
        const key = `${approval.runId}|${approval.stepId}`;
        if (tried.has(key)) continue;
        tried.add(key);
        renderer.end();
        const decision = await decider.decide({
          runId: approval.runId,
          stepId: approval.stepId,
          prompt: approval.prompt,
        });
        if (!decision) {
          undecided++;
          continue;
        }
        await remote
          .call((c) =>
            c.approvals.decide.mutate({
              runId: approval.runId,
              stepId: approval.stepId,
              approved: decision.approved,
              ...(decision.comment ? { comment: decision.comment } : {}),
            }),
          )
          .catch((error: unknown) => {
            stderr.write(`${stderr.style('yellow', '!')} ${messageOf(error)}\n`);
          });
        waitingSince = null;
      }
      // Parked: an approval nobody here decides, or waiting a while with nothing to decide.
      if (undecided > 0 || (pending.length === 0 && Date.now() - (waitingSince ?? Date.now()) > 3_000)) parked = true;
    }
    // The run ended: give its last events a moment to arrive so the progress is whole.
    for (let i = 0; i < 20 && !ended && !parked; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  } finally {
    process.off('SIGINT', onInterrupt);
    for (const sub of subscriptions) sub.unsubscribe();
    renderer.end();
  }
  return reportRemote(remote, rootRunId, [...known], options);
}

/** The summary of `report.ts`, from the API: runs.get of each run seen, pending approvals. */
async function reportRemote(
  remote: Remote,
  rootRunId: string,
  runIds: string[],
  options: { json: boolean; extra?: Record<string, Json> },
): Promise<number> {
  const got = await Promise.all(runIds.map((runId) => getFullRun(remote, runId)));
  const root = got.find((g) => g.run.id === rootRunId)!.run;
  const states = [
    got.find((g) => g.run.id === rootRunId)!.state,
    ...got.filter((g) => g.run.id !== rootRunId).map((g) => g.state),
  ] as RunState[];
  const stats = treeStats(states);
  const tokens = stats.inputTokens + stats.outputTokens;
  const facts = [
    plural(stats.steps, 'step'),
    ...(stats.failedSteps > 0 ? [`${stats.failedSteps} failed`] : []),
    ...(runIds.length > 1 ? [plural(runIds.length - 1, 'child run')] : []),
    tokens > 0 ? `${tokens} tokens (${stats.inputTokens} in, ${stats.outputTokens} out)` : '0 tokens',
  ];
  const duration = formatDuration(stats.durationMs);
  const result: Record<string, Json> = { runId: root.id, status: root.status, output: root.output as Json };
  if (root.replayOf && states[0])
    Object.assign(result, { replayOf: root.replayOf, ...replayFacts(states[0], options.extra?.pinned) });
  let code: number;
  if (root.status === 'completed') {
    stderr.write(`${stderr.style(['bold', 'green'], '✓ completed')} in ${duration} · ${facts.join(' · ')}\n`);
    code = EXIT.ok;
  } else if (root.status === 'failed' || root.status === 'cancelled') {
    const error = root.error ?? { name: 'Error', message: `the run ${root.status}` };
    stderr.write(`${stderr.style(['bold', 'red'], `✗ ${root.status}`)} after ${duration} · ${facts.join(' · ')}\n`);
    if (root.status === 'failed') {
      const where = error.stepId ? `step '${error.stepId}'` : `run ${root.id}`;
      stderr.write(`  ${stderr.style('red', 'error')} at ${where}: ${redact(error.message)}\n`);
    }
    result.error = { ...error, message: redact(error.message) } as unknown as Json;
    code = EXIT.failed;
  } else {
    const pending = (await remote.call((c) => c.approvals.list.query())).filter((a) => runIds.includes(a.runId));
    stderr.write(
      `${stderr.style(['bold', 'yellow'], '⏸ parked')} after ${duration} · ${facts.join(' · ')} · run ${root.id}\n`,
    );
    if (pending.length > 0) {
      stderr.write(`  waiting for ${plural(pending.length, 'approval')}; resolve with:\n`);
      for (const approval of pending) {
        stderr.write(`    ${approveCommandRemote(approval.runId, approval.stepId, remote.url)}\n`);
        stderr.write(`      ${stderr.style('dim', JSON.stringify(approval.prompt))}\n`);
      }
    } else {
      stderr.write(`  continue it with: weft runs resume ${shellQuote(root.id)} --server ${shellQuote(remote.url)}\n`);
    }
    result.waiting = pending.map((approval) => ({
      runId: approval.runId,
      stepId: approval.stepId,
      prompt: approval.prompt,
      command: approveCommandRemote(approval.runId, approval.stepId, remote.url),
    }));
    code = EXIT.parked;
  }
  if (options.json) printJsonLine({ ...result, ...options.extra });
  return code;
}

/** Every stored event of a run: the subscription replays them; it is cut once it goes quiet. */
export async function collectEvents(remote: Remote, runId: string, quietMs = 400): Promise<RunEvent[]> {
  await remote.call((c) => c.runs.get.query({ runId }));
  return new Promise<RunEvent[]>((resolve, reject) => {
    const events: RunEvent[] = [];
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      sub.unsubscribe();
      resolve(events);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(finish, quietMs);
    };
    const sub = remote.client.runs.events.subscribe(
      { runId, lastEventId: null },
      {
        onData: ({ data }) => {
          events.push(data as RunEvent);
          arm();
        },
        onError: (error) => {
          clearTimeout(timer);
          sub.unsubscribe();
          reject(remoteError(remote.url, error));
        },
        onComplete: finish,
      },
    );
    timer = setTimeout(finish, quietMs * 5);
  });
}
