/**
 * The `code` sandbox under load and under attack. (a) A real `weft serve` (its own process, a
 * temp WEFT_DATA) runs a `map` of 20 code steps that each busy-loop ~900 ms while this script
 * times GET /health against the same idle server measured first in the same run: code runs on
 * worker threads, so the event loop keeps answering. (b) Code steps that try to allocate 1 GB
 * (strings, typed arrays, arrays) fail at the 32 MiB memory limit: the error and this process's
 * RSS growth while the call ran (its workers are threads of this process). (c) A loop of long
 * native operations, which QuickJS's interrupt handler never sees, stops at the deadline.
 * Targets are reported, not asserted: the exit code is non-zero only when something failed to
 * run or a run did not produce the expected result.
 *
 *   pnpm bench:sandbox                  # ~40 s
 *   node bench/sandbox.ts --quick       # fewer baseline requests, one 1 GB case
 */
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { client, serve, shutdown } from '../apps/api/test/serve-process.ts';
import {
  DEADLINE_GRACE_MS,
  DEFAULT_SANDBOX_WORKERS,
  runInSandbox,
  SandboxPool,
} from '../packages/adapters/src/executors/sandbox.ts';
import { percentile } from './lib/api-table.ts';

const { values: args } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
});
if (args.help) {
  console.log('usage: node bench/sandbox.ts [--quick]');
  process.exit(0);
}

const ITEMS = 20;
const SPIN_MS = 900;
const BASELINE_REQUESTS = args.quick ? 100 : 300;
/** Pause between two /health requests, so the probe measures the server, not saturates it. */
const PROBE_GAP_MS = 20;
const TARGET_P99_MS = 50;
const TARGET_RSS_MB = 100;
const MB = 1e6;

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);
const check = (ok: boolean) => (ok ? '✓' : '✗');
const ms = (value: number) => `${value.toFixed(1)} ms`;

interface Latencies {
  sorted: number[];
  p50: number;
  p99: number;
  max: number;
}

/** GET /health one after another until `more()` says stop (and at least `min` times). */
async function probeHealth(url: string, min: number, more: () => boolean): Promise<Latencies> {
  const times: number[] = [];
  while (times.length < min || more()) {
    const start = performance.now();
    const response = await fetch(`${url}/health`);
    await response.arrayBuffer();
    times.push(performance.now() - start);
    if (!response.ok) throw new Error(`/health answered ${response.status}`);
    await sleep(PROBE_GAP_MS);
  }
  const sorted = times.sort((a, b) => a - b);
  return { sorted, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1)! };
}

const over = (l: Latencies, limitMs: number) => l.sorted.filter((t) => t > limitMs).length;

async function healthUnderLoad(): Promise<string[]> {
  const server = await serve('bench-sandbox', { env: { WEFT_LOG_LEVEL: 'silent' } });
  try {
    const api = client(server);
    const source = `const end = Date.now() + ${SPIN_MS}; while (Date.now() < end) {} return 'done';`;
    await api.flows.create.mutate({
      doc: {
        irVersion: 1,
        id: 'bench-sandbox',
        name: `map of ${ITEMS} busy code steps`,
        steps: [{ id: 'each', type: 'map', items: '=input.items', steps: [{ id: 'spin', type: 'code', source }] }],
      },
    });
    progress(`baseline: ${BASELINE_REQUESTS} × GET /health on the idle server`);
    const idle = await probeHealth(server.url, BASELINE_REQUESTS, () => false);
    // The run keeps a CPU busy (its worker); on a machine short of cores that alone delays the
    // server. A busy process beside the idle server shows what that costs without the sandbox.
    progress(`control: ${BASELINE_REQUESTS} × GET /health on the idle server beside a process spinning one CPU`);
    const spinner = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    const contended = await probeHealth(server.url, BASELINE_REQUESTS, () => false).finally(() => spinner.kill());

    progress(`a map of ${ITEMS} code steps busy-looping ${SPIN_MS} ms each, GET /health until it ends`);
    const started = performance.now();
    const { runId } = await api.runs.start.mutate({
      flowId: 'bench-sandbox',
      input: { items: Array.from({ length: ITEMS }, (_, i) => i) },
    });
    let run: Awaited<ReturnType<typeof api.runs.get.query>>['run'] | undefined;
    const watch = (async () => {
      for (;;) {
        ({ run } = await api.runs.get.query({ runId }));
        if (!['running', 'waiting'].includes(run.status)) return performance.now() - started;
        await sleep(250);
      }
    })();
    const busy = await probeHealth(
      server.url,
      1,
      () => run === undefined || ['running', 'waiting'].includes(run.status),
    );
    const runMs = await watch;
    const output = run?.output as unknown;
    if (
      run?.status !== 'completed' ||
      !Array.isArray(output) ||
      output.length !== ITEMS ||
      output.some((o) => o !== 'done')
    ) {
      throw new Error(`the run ended ${run?.status}: ${JSON.stringify(run?.error ?? output)}`);
    }
    const row = (what: string, l: Latencies) =>
      `  ${what.padEnd(31)} ${String(l.sorted.length).padStart(5)}   ${ms(l.p50).padStart(9)}  ${ms(l.p99).padStart(9)}  ${ms(l.max).padStart(9)}`;
    return [
      `(a) GET /health while a map of ${ITEMS} code steps busy-loops ${SPIN_MS} ms each (weft serve, its own process)`,
      `  ${''.padEnd(31)} ${'reqs'.padStart(5)}   ${'p50'.padStart(9)}  ${'p99'.padStart(9)}  ${'max'.padStart(9)}`,
      row('idle server (baseline)', idle),
      row('idle + a process busy on 1 CPU', contended),
      row('during the run', busy),
      `  the run: ${ITEMS} × ${SPIN_MS} ms of code took ${(runMs / 1000).toFixed(1)} s ` +
        `(${DEFAULT_SANDBOX_WORKERS} sandbox worker(s) on ${cpus().length} CPUs)`,
      `  p99 during the run: ${ms(busy.p99)} — target p99 < ${TARGET_P99_MS} ms ${check(busy.p99 < TARGET_P99_MS)}`,
      `  requests over 100 ms: ${over(idle, 100)} idle, ${over(contended, 100)} beside the busy process, ${over(busy, 100)} during the run` +
        ` (a blocked event loop holds a request up to ${SPIN_MS} ms)`,
    ];
  } finally {
    await shutdown(server);
  }
}

const HOGS: Record<string, string> = {
  'strings (1000 × 1 MB)': "const a = []; for (let i = 0; i < 1000; i++) a.push('x'.repeat(1e6)); return a.length;",
  'typed arrays (1000 × 1 MB)':
    'const a = []; for (let i = 0; i < 1000; i++) a.push(new Uint8Array(1e6).fill(1)); return a.length;',
  'arrays (1000 × 1 MB)':
    'const a = []; for (let i = 0; i < 1000; i++) a.push(new Array(125000).fill(i)); return a.length;',
};

/** Runs `source` on `pool`, sampling this process's RSS every 2 ms (the event loop is free to). */
async function withPeakRss(pool: SandboxPool, source: string, timeoutMs: number) {
  await runInSandbox('return 1;', {}, {}, { pool }); // a started worker: the call is measured, not a worker's start
  await sleep(300); // a replaced worker's memory is returned
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  const start = performance.now();
  let message = 'no error: the call succeeded';
  try {
    await runInSandbox(source, {}, { timeoutMs }, { pool });
  } catch (error) {
    message = (error as Error).message;
  }
  const elapsed = performance.now() - start;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  return { message, elapsed, growthMb: (peak - before) / MB };
}

async function memoryAndTime(): Promise<string[]> {
  const pool = new SandboxPool({ size: 1 });
  const lines = ['(b) code steps allocating 1 GB, 32 MiB memory limit (time limit 60 s, so only memory can stop them)'];
  try {
    for (const [what, source] of Object.entries(HOGS).slice(0, args.quick ? 1 : undefined)) {
      progress(`1 GB of ${what}`);
      const { message, elapsed, growthMb } = await withPeakRss(pool, source, 60_000);
      lines.push(
        `  ${what}: "${message}" after ${ms(elapsed)}; RSS growth ${growthMb.toFixed(1)} MB — target < ${TARGET_RSS_MB} MB ${check(
          growthMb < TARGET_RSS_MB && message.includes('memory limit'),
        )}`,
      );
    }
    progress('a loop of long native operations');
    const spin = "let n = 0; for (let i = 0; i < 200; i++) n += 'x'.repeat(1e7).length; return n;";
    const { message, elapsed } = await withPeakRss(pool, spin, 1000);
    const bound = 1000 + DEADLINE_GRACE_MS + 250;
    lines.push(
      '(c) 200 × "x".repeat(1e7), 1000 ms time limit (QuickJS checks its deadline between bytecodes only)',
      `  "${message}" after ${ms(elapsed)} (the pool's deadline: ${1000 + DEADLINE_GRACE_MS} ms) — target < ${bound} ms ${check(
        elapsed < bound && message.includes('time limit'),
      )}`,
    );
  } finally {
    pool.close();
  }
  return lines;
}

const loadAtStart = loadavg();
const report = [...(await healthUnderLoad()), '', ...(await memoryAndTime())];
const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
console.log(`\nWeft code sandbox benchmark`);
console.log(
  `machine: ${cpus().length} CPU × ${cpus()[0]?.model.trim() ?? 'unknown'}; node ${process.version}; ` +
    `load average ${load(loadAtStart)} at start, ${load(loadavg())} at end\n`,
);
console.log(report.join('\n'));
