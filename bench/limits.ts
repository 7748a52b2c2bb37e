/**
 * Large values and the event loop. A real `weft serve` (its own process, a temp WEFT_DATA) is
 * timed on GET /health, 20 ms apart, while it (a) runs a code step returning 4 MB, (b) runs a
 * map of 20 such steps, (c) serves tRPC batches of `runs.get` for four large runs (3 maps of
 * 20 × 90 kB outputs each, ~11 MB of log apiece), each next to the same server idle, measured first in
 * the same run. Oversize outputs must be refused by the step output limit (or stored within it),
 * and /health's p99 stay under 50 ms. `--check` exits 1 when a p99 is 50 ms or more; without
 * it, targets are reported only (a non-zero exit means something failed to run or a run ended
 * other than expected).
 *
 *   pnpm bench:limits                 # ~1 minute
 *   node bench/limits.ts --quick      # fewer baseline requests and batches
 *   node bench/limits.ts --check      # exit 1 on a missed target
 */
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { client, type Server, serve, shutdown } from '../apps/api/test/serve-process.ts';
import { percentile } from './lib/api-table.ts';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    check: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  console.log('usage: node bench/limits.ts [--quick] [--check]');
  process.exit(0);
}

const BASELINE_REQUESTS = args.quick ? 100 : 300;
const BATCHES = args.quick ? 5 : 20;
const ITEMS = 20;
const LARGE_RUN_MAPS = 3;
/** Pause between two /health requests, so the probe measures the server, not saturates it. */
const PROBE_GAP_MS = 20;
const TARGET_P99_MS = 50;
const MB = 1e6;

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);
const ms = (value: number) => `${value.toFixed(1)} ms`;

interface Latencies {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** GET /health one after another until `done` settles (and at least `min` times). */
async function probeHealth(url: string, min: number, done?: Promise<unknown>): Promise<Latencies> {
  let finished = done === undefined;
  done?.finally(() => {
    finished = true;
  });
  const times: number[] = [];
  while (times.length < min || !finished) {
    const start = performance.now();
    const response = await fetch(`${url}/health`);
    await response.arrayBuffer();
    times.push(performance.now() - start);
    if (!response.ok) throw new Error(`/health answered ${response.status}`);
    await sleep(PROBE_GAP_MS);
  }
  const sorted = times.sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1)! };
}

type Api = ReturnType<typeof client>;

/** Starts `flowId` and waits for its end over runs.list (which carries no outputs). */
async function runToEnd(api: Api, flowId: string, input: unknown) {
  const { runId } = await api.runs.start.mutate({ flowId, input: input as never });
  for (;;) {
    const { run } = await api.runs.get.query({ runId, maxBytes: 1 });
    if (!['running', 'waiting'].includes(run.status)) return { runId, run };
    await sleep(100);
  }
}

const FOUR_MB = "return 'x'.repeat(4000000);";
const NINETY_KB = "return 'x'.repeat(90000);";

async function createFlows(api: Api) {
  const flows = [
    { id: 'warm', name: 'warm-up', steps: [{ id: 'tiny', type: 'code', source: 'return 1;' }] },
    { id: 'big', name: 'a 4 MB output', steps: [{ id: 'big', type: 'code', source: FOUR_MB }] },
    {
      id: 'big-map',
      name: `a map of ${ITEMS} × 4 MB outputs`,
      steps: [
        { id: 'each', type: 'map', items: '=input.items', steps: [{ id: 'big', type: 'code', source: FOUR_MB }] },
      ],
    },
    {
      // As large as the limits let a run of this shape be: each map's gathered output just under
      // the 2 MiB event limit, the run's output small.
      id: 'large',
      name: `${LARGE_RUN_MAPS} maps of ${ITEMS} × 90 kB outputs`,
      output: '=1',
      steps: Array.from({ length: LARGE_RUN_MAPS }, (_, i) => ({
        id: `m${i}`,
        type: 'map',
        items: '=input.items',
        steps: [{ id: `part${i}`, type: 'code', source: NINETY_KB }],
      })),
    },
  ];
  for (const flow of flows) await api.flows.create.mutate({ doc: { irVersion: 1, ...flow } as never });
}

/** One tRPC batch of runs.get for `runIds`, as the editor's httpBatchLink sends it. */
async function batchGet(server: Server, runIds: string[]): Promise<{ status: number; bytes: number }> {
  const input = Object.fromEntries(runIds.map((runId, i) => [String(i), { runId }]));
  const paths = runIds.map(() => 'runs.get').join(',');
  const response = await fetch(
    `${server.url}/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`,
  );
  const body = await response.arrayBuffer();
  return { status: response.status, bytes: body.byteLength };
}

interface Row {
  what: string;
  health: Latencies;
  note: string;
}

async function measure(): Promise<{ rows: Row[]; baseline: Latencies }> {
  const server = await serve('bench-limits', { env: { WEFT_LOG_LEVEL: 'silent' } });
  try {
    const api = client(server);
    await createFlows(api);
    // Lazy imports (the sandbox's worker and QuickJS) load on the first code step: not measured.
    await runToEnd(api, 'warm', {});
    progress(`baseline: ${BASELINE_REQUESTS} × GET /health on the idle server`);
    const baseline = await probeHealth(server.url, BASELINE_REQUESTS);
    const rows: Row[] = [];

    progress('(a) a code step returning 4 MB');
    const one = runToEnd(api, 'big', {});
    const oneHealth = await probeHealth(server.url, 10, one);
    const oneRun = (await one).run;
    rows.push({
      what: '(a) a step returns 4 MB',
      health: oneHealth,
      note: `${oneRun.status}: ${oneRun.error?.message}`,
    });

    progress(`(b) a map of ${ITEMS} code steps returning 4 MB each`);
    const map = runToEnd(api, 'big-map', { items: Array.from({ length: ITEMS }, (_, i) => i) });
    const mapHealth = await probeHealth(server.url, 10, map);
    const mapRun = await map;
    const mapState = (await api.runs.get.query({ runId: mapRun.runId })).state;
    const refused = Object.values(mapState.steps).filter((step) =>
      step.error?.message.includes('step output limit'),
    ).length;
    rows.push({
      what: `(b) a map of ${ITEMS} × 4 MB`,
      health: mapHealth,
      note: `${mapRun.run.status}; ${refused} step(s) refused by the step output limit: ${mapRun.run.error?.message}`,
    });

    progress(`four large runs (${LARGE_RUN_MAPS} maps of ${ITEMS} × 90 kB outputs each)`);
    const largeStart = performance.now();
    const large = [];
    for (let i = 0; i < 4; i++)
      large.push(await runToEnd(api, 'large', { items: Array.from({ length: ITEMS }, (_, i) => i) }));
    const largeMs = performance.now() - largeStart;
    for (const { run } of large)
      if (run.status !== 'completed') throw new Error(`a large run ended ${run.status}: ${run.error?.message}`);
    progress(`(c) ${BATCHES} tRPC batches of runs.get for the four`);
    const runIds = large.map(({ runId }) => runId);
    let bytes = 0;
    const statuses = new Set<number>();
    const batches = (async () => {
      for (let i = 0; i < BATCHES; i++) {
        const answer = await batchGet(server, runIds);
        statuses.add(answer.status);
        bytes = Math.max(bytes, answer.bytes);
      }
    })();
    const batchHealth = await probeHealth(server.url, 10, batches);
    await batches;
    rows.push({
      what: '(c) batches of runs.get × 4 large runs',
      health: batchHealth,
      note: `HTTP ${[...statuses].join(', ')}; ${(bytes / MB).toFixed(1)} MB per batch; the four runs took ${(largeMs / 1000).toFixed(1)} s to make`,
    });
    return { rows, baseline };
  } finally {
    await shutdown(server);
  }
}

const loadAtStart = loadavg();
const { rows, baseline } = await measure();
const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
console.log('\nWeft size limits benchmark: GET /health while large values are produced and served');
console.log(
  `machine: ${cpus().length} CPU × ${cpus()[0]?.model.trim() ?? 'unknown'}; node ${process.version}; ` +
    `load average ${load(loadAtStart)} at start, ${load(loadavg())} at end\n`,
);
const line = (what: string, l: Latencies, ratio: string, verdict: string) =>
  `  ${what.padEnd(40)} ${String(l.count).padStart(5)} ${ms(l.p50).padStart(9)} ${ms(l.p99).padStart(9)} ${ms(l.max).padStart(9)} ${ratio.padStart(7)}  ${verdict}`;
console.log(
  `  ${''.padEnd(40)} ${'reqs'.padStart(5)} ${'p50'.padStart(9)} ${'p99'.padStart(9)} ${'max'.padStart(9)} ${'p99/idle'.padStart(7)}  target p99 < ${TARGET_P99_MS} ms`,
);
console.log(line('idle server (baseline)', baseline, '1.0', ''));
let missed = 0;
for (const row of rows) {
  const ok = row.health.p99 < TARGET_P99_MS;
  if (!ok) missed++;
  console.log(line(row.what, row.health, (row.health.p99 / baseline.p99).toFixed(1), ok ? '✓' : '✗ MISS'));
}
console.log('');
for (const row of rows) console.log(`  ${row.what}: ${row.note}`);
if (args.check && missed > 0) {
  console.error(`\n${missed} row(s) missed p99 < ${TARGET_P99_MS} ms`);
  process.exit(1);
}
