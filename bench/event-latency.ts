/**
 * How long a step an external engine completed takes to reach a subscriber of the run's events.
 * A real `weft serve` (its own process) runs on the real Temporal and Inngest dev servers;
 * flows of sequential `code` steps (each one an activity / a `step.run`) run there while this
 * script follows each run over the same tRPC SSE subscription the editor uses. A step's latency
 * is when its `step.completed` arrived here minus the time the store stamped on it (`at`), so it
 * measures the delivery path alone: store → API → subscriber. The same machine stamps and
 * receives, so the clocks agree. The in-process backend is measured alongside as the baseline
 * (its events reach the bus as they are written).
 *
 * Then Temporal once more with its worker in another process (`weft worker temporal`, the
 * server started with WEFT_TEMPORAL_WORKER=external), on SQLite and on PostgreSQL: the events
 * are written by that process and reach the server through the store's commit feed (SQLite's
 * write-ahead log watched, PostgreSQL LISTEN/NOTIFY) — what a 100 ms poll of the store used to do.
 *
 *   node bench/event-latency.ts            # 1,000 steps per backend (10 runs of 100)
 *   node bench/event-latency.ts --quick    # 100 steps per backend
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MAIN } from '../apps/api/test/helpers.ts';
import { client, type Server, serve, shutdown } from '../apps/api/test/serve-process.ts';
import { startInngestDevServer } from '../packages/adapters/src/inngest/dev-server.ts';
import { postgresDbBackend } from '../packages/adapters/src/inprocess/test-support.ts';
import { startTemporalDevServer } from '../packages/adapters/src/temporal/dev-server.ts';
import { percentile } from './lib/api-table.ts';

const { values: args } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const RUNS = args.quick ? 1 : 10;
const STEPS_PER_RUN = 100;
const BACKENDS = ['inprocess', 'temporal', 'inngest'] as const;
type Backend = (typeof BACKENDS)[number];

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);

const flow = {
  irVersion: 1,
  id: 'latency',
  name: 'Event latency',
  steps: Array.from({ length: STEPS_PER_RUN }, (_, index) => ({
    id: `s${index}`,
    type: 'code',
    source: `return ${index};`,
  })),
};

type Client = ReturnType<typeof client>;

/** Runs the flow once on `backend`; resolves with each step.completed's delivery latency (ms). */
function measureRun(api: Client, backend: Backend): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    void api.runs.start.mutate({ flowId: 'latency', backend }).then(({ runId }) => {
      const subscription = api.runs.events.subscribe(
        { runId, lastEventId: null },
        {
          onData(item: { data: { type: string; at: number } }) {
            const event = item.data;
            if (event.type === 'step.completed') latencies.push(Date.now() - event.at);
            if (event.type === 'run.completed' || event.type === 'run.failed') {
              subscription.unsubscribe();
              if (event.type === 'run.failed') reject(new Error(`a ${backend} run failed`));
              else resolve(latencies);
            }
          },
          onError: reject,
          onComplete() {},
        },
      );
    }, reject);
  });
}

/** Runs the flow RUNS times on `backend` through `server`; one table row of step latencies. */
async function measure(server: Server, backend: Backend, label: string): Promise<string> {
  const api = client(server);
  if (!(await api.flows.list.query()).some((saved: { id: string }) => saved.id === flow.id))
    await api.flows.create.mutate({ doc: flow });
  const all: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    progress(`${label}: run ${run + 1} of ${RUNS} (${STEPS_PER_RUN} code steps)`);
    all.push(...(await measureRun(api, backend)));
  }
  all.sort((a, b) => a - b);
  return (
    `  ${label.padEnd(46)} ${String(all.length).padStart(6)} ${`${percentile(all, 50)} ms`.padStart(9)} ` +
    `${`${percentile(all, 99)} ms`.padStart(9)} ${`${all.at(-1)} ms`.padStart(9)}`
  );
}

/** `weft worker temporal` in its own process, on the store `env` names; resolves once it polls. */
async function workerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN, 'worker', 'temporal'], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the worker did not start:\n${stderr}`)), 60_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('worker on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`the worker exited with ${code}:\n${stderr}`)));
  });
  return child;
}

async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Temporal with the worker in another process than the server, over one store. */
async function foreignWorker(temporalAddress: string, store: 'sqlite' | 'postgres'): Promise<string> {
  const temporal = { TEMPORAL_ADDRESS: temporalAddress };
  const dataDir = await mkdtemp(join(tmpdir(), 'weft-latency-'));
  const pg = store === 'postgres' ? postgresDbBackend() : undefined;
  await pg?.setup();
  const storeEnv: Record<string, string> = pg ? { DATABASE_URL: pg.url } : { WEFT_DATA: dataDir };
  let server: Server | undefined;
  let worker: ChildProcess | undefined;
  try {
    server = await serve(`latency-${store}`, {
      ...(pg ? { databaseUrl: pg.url } : { dataDir }),
      env: { ...temporal, WEFT_TEMPORAL_WORKER: 'external' },
    });
    worker = await workerProcess({ ...temporal, ...storeEnv });
    return await measure(server, 'temporal', `temporal, worker in another process (${store})`);
  } finally {
    await stopProcess(worker);
    await shutdown(server);
    await pg?.teardown();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  progress('starting the Temporal and Inngest dev servers');
  const [temporal, inngest] = await Promise.all([startTemporalDevServer(), startInngestDevServer()]);
  const load = loadavg().map((value) => value.toFixed(2));
  const rows: string[] = [];
  try {
    const server = await serve('latency', {
      env: { TEMPORAL_ADDRESS: temporal.address, INNGEST_DEV: '1', INNGEST_BASE_URL: inngest.url },
    });
    try {
      for (const backend of BACKENDS) rows.push(await measure(server, backend, backend));
    } finally {
      await shutdown(server);
    }
    for (const store of ['sqlite', 'postgres'] as const) rows.push(await foreignWorker(temporal.address, store));
  } finally {
    await Promise.all([temporal.stop(), inngest.stop()]);
  }
  console.log(
    `\nWeft event delivery: a step completed → its event at an SSE subscriber (weft serve, load ${load.join(' ')})`,
  );
  console.log(`  ${'backend'.padEnd(46)}  steps       p50       p99       max`);
  for (const row of rows) console.log(row);
  console.log(
    "  (every commit reaches the bus through the store's feed, store.onEvents: this process's at once, another process's through the commit feed)",
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
