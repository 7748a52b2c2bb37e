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
 *   node bench/event-latency.ts            # 1,000 steps per backend (10 runs of 100)
 *   node bench/event-latency.ts --quick    # 100 steps per backend
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { client, serve, shutdown } from '../apps/api/test/serve-process.ts';
import { startInngestDevServer } from '../packages/adapters/src/inngest/dev-server.ts';
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

async function main(): Promise<void> {
  progress('starting the Temporal and Inngest dev servers');
  const [temporal, inngest] = await Promise.all([startTemporalDevServer(), startInngestDevServer()]);
  const server = await serve('latency', {
    env: { TEMPORAL_ADDRESS: temporal.address, INNGEST_DEV: '1', INNGEST_BASE_URL: inngest.url },
  });
  const api = client(server);
  const load = loadavg().map((value) => value.toFixed(2));
  const rows: string[] = [];
  try {
    await api.flows.create.mutate({ doc: flow });
    for (const backend of BACKENDS) {
      const all: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        progress(`${backend}: run ${run + 1} of ${RUNS} (${STEPS_PER_RUN} code steps)`);
        all.push(...(await measureRun(api, backend)));
      }
      all.sort((a, b) => a - b);
      rows.push(
        `  ${backend.padEnd(10)} ${String(all.length).padStart(6)} ${`${percentile(all, 50)} ms`.padStart(9)} ` +
          `${`${percentile(all, 99)} ms`.padStart(9)} ${`${all.at(-1)} ms`.padStart(9)}`,
      );
    }
  } finally {
    await shutdown(server);
    await Promise.all([temporal.stop(), inngest.stop()]);
  }
  console.log(
    `\nWeft event delivery: a step completed → its event at an SSE subscriber (weft serve, load ${load.join(' ')})`,
  );
  console.log(`  backend     steps       p50       p99       max`);
  for (const row of rows) console.log(row);
  console.log("  (every commit this process makes reaches the bus through the store's own feed, store.onEvents)");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
