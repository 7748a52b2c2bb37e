/**
 * The same flows on the two backends, in the same run: the in-process runner over a SQLite store
 * and Temporal (a real dev server on loopback, one worker in this process over its own SQLite
 * store). For each scenario — sequential no-op steps, a parallel fan-out of no-op steps, an agent
 * loop on the mock model with recorded fixtures — prints the total time of a run end to end and
 * the time per step (per turn for the agent), and the ratio Temporal / in-process. Numbers are
 * reported, not asserted: the exit code is non-zero only when something failed to run or a run
 * did not produce the expected result.
 *
 *   pnpm bench:backends                  # 1,000 steps, 256-wide, 20 turns (a few minutes)
 *   node bench/backends.ts --quick       # 100 steps, 64-wide, 20 turns, one timed run each
 *
 * The Temporal binary is .tools/bin/temporal (built by scripts/ensure-temporal.sh when missing;
 * TEMPORAL_CLI overrides). See bench/README.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import type { InProcessRunner } from '../packages/adapters/src/inprocess/index.ts';
import { openSqliteStore, type RunStore } from '../packages/adapters/src/store/index.ts';
import { type Fixtures, type Json, type RunEvent, validateFlow } from '../packages/engine/src/index.ts';
import { type BenchBackend, openInngest, openTemporal } from './lib/external-backends.ts';
import { agentFixtures, agentFlow, fanOutFlow, hostToolSpecs, hostTools, sequentialFlow } from './lib/flows.ts';
import { median } from './lib/measure.ts';
import { benchRunner } from './lib/runner.ts';
import { checkAgentOutput } from './scenarios/memory.ts';

const HOST_TOOL_NAMES = Object.keys(hostTools);

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    backends: { type: 'string', default: 'temporal,inngest' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  console.log(
    'usage: node bench/backends.ts [--quick] [--backends temporal,inngest]   (TEMPORAL_CLI / INNGEST_CLI override the binaries)',
  );
  process.exit(0);
}

interface Sizes {
  steps: number;
  fanOut: number;
  turns: number;
}

/** Untimed runs, then timed runs (median reported); `budgetMs` ends the timed runs early, after at least one. */
interface Plan {
  warmup: number;
  warmupMs: number;
  rounds: number;
  minMs: number;
  budgetMs: number;
}

const SIZES: Sizes = args.quick ? { steps: 100, fanOut: 64, turns: 20 } : { steps: 1_000, fanOut: 256, turns: 20 };
const IN_PROCESS_PLAN: Plan = args.quick
  ? { warmup: 1, warmupMs: 100, rounds: 1, minMs: 0, budgetMs: Number.POSITIVE_INFINITY }
  : { warmup: 2, warmupMs: 500, rounds: 5, minMs: 1_000, budgetMs: Number.POSITIVE_INFINITY };
/**
 * A run of 1,000 steps on an external engine takes a long time: no per-scenario warm-up (one
 * small run of every scenario warms the worker, the connections and the caches first), fewer
 * rounds, and a time budget.
 */
const EXTERNAL_PLAN: Plan = args.quick
  ? { warmup: 0, warmupMs: 0, rounds: 1, minMs: 0, budgetMs: Number.POSITIVE_INFINITY }
  : { warmup: 0, warmupMs: 0, rounds: 3, minMs: 0, budgetMs: 90_000 };
const WARM_UP_SIZES: Sizes = { steps: 10, fanOut: 8, turns: 2 };

interface Scenario {
  name: string;
  doc: Json;
  fixtures?: Fixtures;
  /** What µs/unit divides by: steps, branches or turns. */
  units: number;
  unit: 'step' | 'turn';
  /** What Temporal executes per run, for the notes. */
  activities: string;
  /** Throws unless the finished run is the expected one. */
  verify(output: Json, events: readonly RunEvent[]): void;
}

function completedSteps(events: readonly RunEvent[], pattern: RegExp): number {
  const ids = new Set<string>();
  for (const event of events) if (event.type === 'step.completed' && pattern.test(event.stepId)) ids.add(event.stepId);
  return ids.size;
}

function expectCount(what: string, actual: number, expected: number): void {
  if (actual !== expected) throw new Error(`${what}: ${actual}, expected ${expected}`);
}

function scenarios(sizes: Sizes): Scenario[] {
  const { steps, fanOut, turns } = sizes;
  return [
    {
      name: `${steps.toLocaleString('en-US')} sequential no-op steps`,
      doc: sequentialFlow(steps),
      units: steps,
      unit: 'step',
      activities: `${steps.toLocaleString('en-US')} executeCall activities, one after another`,
      verify: (_output, events) => expectCount('completed sequential steps', completedSteps(events, /^s\d+$/), steps),
    },
    {
      name: `${fanOut}-wide parallel fan-out`,
      doc: fanOutFlow(fanOut),
      units: fanOut,
      unit: 'step',
      activities: `${fanOut} executeCall activities at once`,
      verify: (output, events) => {
        expectCount('completed branch steps', completedSteps(events, /^fan\.b\d+\/t\d+$/), fanOut);
        expectCount('completed parallel step', completedSteps(events, /^fan$/), 1);
        expectCount('branches in the output', Object.keys((output ?? {}) as object).length, fanOut);
      },
    },
    {
      name: `${turns}-turn agent loop (mock model)`,
      doc: agentFlow(turns),
      fixtures: agentFixtures(turns),
      units: turns,
      unit: 'turn',
      activities: `${2 * turns - 1} executeCall activities (${turns} model turns + ${turns - 1} tool calls)`,
      verify: (output) => checkAgentOutput(output, turns),
    },
  ];
}

/** Checks a finished run through its store: completed, and the scenario's own checks. */
async function verifyRun(store: RunStore, runId: string, scenario: Scenario, backend: string): Promise<void> {
  const run = await store.getRun(runId);
  if (!run) throw new Error(`${backend}: run ${runId} not found`);
  if (run.status !== 'completed') {
    throw new Error(`${backend}: ${scenario.name}: run ${runId} ended ${run.status}: ${JSON.stringify(run.error)}`);
  }
  try {
    scenario.verify(run.output as Json, await store.readEvents(runId));
  } catch (error) {
    throw new Error(`${backend}: ${scenario.name}: run ${runId}: ${(error as Error).message}`);
  }
}

interface Measured {
  /** Every timed run, in ms. */
  runsMs: number[];
  medianMs: number;
  budgetHit: boolean;
}

/** Warm-up runs, then timed runs; every run (warm-up included) is verified after its timing. */
async function measure(
  plan: Plan,
  once: () => Promise<string>,
  verify: (runId: string) => Promise<void>,
  progress: (message: string) => void,
): Promise<Measured> {
  let start = performance.now();
  for (let i = 0; i < plan.warmup || performance.now() - start < plan.warmupMs; i++) await verify(await once());
  const runsMs: number[] = [];
  let budgetHit = false;
  start = performance.now();
  for (;;) {
    const elapsed = performance.now() - start;
    const enough = runsMs.length >= plan.rounds && elapsed >= plan.minMs;
    if (enough || runsMs.length >= 200) break;
    if (runsMs.length >= 1 && elapsed >= plan.budgetMs) {
      budgetHit = true;
      break;
    }
    const t0 = performance.now();
    const runId = await once();
    const ms = performance.now() - t0;
    await verify(runId);
    runsMs.push(ms);
    if (ms > 5_000) progress(`  run ${runsMs.length}: ${(ms / 1000).toFixed(1)} s`);
  }
  return { runsMs, medianMs: median(runsMs), budgetHit };
}

/**
 * Inngest allows 1,000 steps per function run, and the generic function adds one of its own
 * (it records the run's end): the sequential scenario runs the longest flow Inngest allows.
 */
const INNGEST_MAX_FLOW_STEPS = 999;

interface ResultRow {
  scenario: Scenario;
  backend: string;
  measured: Measured;
  ratio?: number;
}

function fmt(value: number): string {
  if (!Number.isFinite(value)) return '—';
  const abs = Math.abs(value);
  if (abs >= 1_000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function renderTable(rows: readonly ResultRow[]): string {
  const head = ['scenario', 'backend', 'runs', 'total ms (median)', 'µs per step', '/ in-process'];
  const body = rows.map((row) => [
    row.scenario.name,
    row.backend,
    String(row.measured.runsMs.length),
    fmt(row.measured.medianMs),
    `${fmt((row.measured.medianMs * 1000) / row.scenario.units)} /${row.scenario.unit}`,
    row.ratio === undefined ? '' : `${fmt(row.ratio)}×`,
  ]);
  const widths = head.map((title, col) => Math.max(title.length, ...body.map((line) => line[col]!.length)));
  const right = new Set([2, 3, 4, 5]);
  const line = (values: readonly string[]) =>
    values
      .map((value, col) => (right.has(col) ? value.padStart(widths[col]!) : value.padEnd(widths[col]!)))
      .join(' │ ')
      .trimEnd();
  const rule = widths.map((width) => '─'.repeat(width)).join('─┼─');
  return [line(head), rule, ...body.map(line)].join('\n');
}

const loadAtStart = loadavg();

function machine(versions: readonly string[]): string {
  const cpu = cpus();
  const sqlite = new DatabaseSync(':memory:');
  const sqliteVersion = String(sqlite.prepare('select sqlite_version() as v').get()?.v ?? '?');
  sqlite.close();
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  return [
    `machine: ${cpu.length} CPU × ${cpu[0]?.model.trim() ?? 'unknown'}, ${process.platform}/${process.arch}; ` +
      `load average ${load(loadAtStart)} at start, ${load(loadavg())} at end (other work on the machine inflates wall times)`,
    `node ${process.version}, SQLite ${sqliteVersion} (node:sqlite, temp dir ${tmpdir()}); ${versions.join('; ')} ` +
      '(real dev servers on loopback, in-memory persistence; worker / served function in this process)',
  ].join('\n');
}

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-backends-'));
  const externals: BenchBackend[] = [];
  let inProcessStore: RunStore | undefined;
  let runner: InProcessRunner | undefined;
  const stop = () => {
    void Promise.allSettled(externals.map((backend) => backend.close())).finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const setup = { dir, hostTools, hostToolSpecs };
    const wanted = new Set((args.backends ?? '').split(',').map((name) => name.trim()));
    if (wanted.has('temporal')) {
      progress('starting the Temporal dev server and bundling the workflow');
      externals.push(await openTemporal(setup));
    }
    if (wanted.has('inngest')) {
      progress('starting the Inngest dev server and serving the function');
      externals.push(await openInngest(setup));
    }
    inProcessStore = await openSqliteStore(join(dir, 'in-process.db'));
    runner = benchRunner(inProcessStore);
    const inProcessRunner = runner;
    const iStore = inProcessStore;

    const rows: ResultRow[] = [];
    const notes: string[] = externals.map(
      (backend) => `${backend.label}: server up and ready in ${fmt(backend.setupMs)} ms (not in any row).`,
    );
    const onInProcess = async (scenario: Scenario) =>
      (await inProcessRunner.start(scenario.doc, {}, scenario.fixtures ? { fixtures: scenario.fixtures } : {})).runId;
    const onExternal = async (backend: BenchBackend, scenario: Scenario) => {
      // Validation is in the timing, as runner.start() validates too.
      const validated = validateFlow(scenario.doc, { hostTools: HOST_TOOL_NAMES });
      if (!validated.ok) {
        throw new Error(`${scenario.name}: invalid flow: ${JSON.stringify(validated.errors.slice(0, 3))}`);
      }
      return backend.run(validated.flow, scenario.fixtures);
    };
    try {
      progress('warm-up: one small run of every scenario on every backend');
      for (const scenario of scenarios(WARM_UP_SIZES)) {
        await verifyRun(iStore, await onInProcess(scenario), scenario, 'in-process');
        for (const backend of externals)
          await verifyRun(backend.store, await onExternal(backend, scenario), scenario, backend.label);
      }
      const full = scenarios(SIZES);
      // Inngest: the same scenarios, the sequential one cut to the longest flow it allows.
      const capped = scenarios({ ...SIZES, steps: Math.min(SIZES.steps, INNGEST_MAX_FLOW_STEPS) });
      for (const [index, scenario] of full.entries()) {
        progress(`${scenario.name}: in-process`);
        const inProcess = await measure(
          IN_PROCESS_PLAN,
          () => onInProcess(scenario),
          (runId) => verifyRun(iStore, runId, scenario, 'in-process'),
          progress,
        );
        rows.push({ scenario, backend: 'in-process', measured: inProcess });
        for (const backend of externals) {
          const own = backend.name === 'inngest' ? capped[index]! : scenario;
          progress(`${own.name}: ${backend.label}`);
          const measured = await measure(
            EXTERNAL_PLAN,
            () => onExternal(backend, own),
            (runId) => verifyRun(backend.store, runId, own, backend.label),
            progress,
          );
          // Per unit against per unit: the scenarios may differ in size (Inngest's step limit).
          const ratio = measured.medianMs / own.units / (inProcess.medianMs / scenario.units);
          rows.push({ scenario: own, backend: backend.label, measured, ratio });
          notes.push(
            `${own.name} on ${backend.label}: ${measured.runsMs.length} timed run${measured.runsMs.length === 1 ? '' : 's'} completed and verified ` +
              `(${measured.runsMs.map((ms) => `${fmt(ms)} ms`).join(', ')})` +
              (measured.budgetHit ? `; timed runs cut at the ${EXTERNAL_PLAN.budgetMs / 1000} s budget` : '') +
              '.',
          );
        }
      }
    } finally {
      await runner.close();
      runner = undefined;
    }

    const mode = args.quick
      ? '--quick: warm-up runs, then 1 timed run per backend and scenario'
      : `in-process: ≥ ${IN_PROCESS_PLAN.warmup} warm-up runs (≥ ${IN_PROCESS_PLAN.warmupMs} ms), median of ≥ ${IN_PROCESS_PLAN.rounds} timed runs (≥ ${IN_PROCESS_PLAN.minMs} ms); ` +
        `external engines: one small warm-up run per scenario, then the median of ${EXTERNAL_PLAN.rounds} timed runs (fewer past ${EXTERNAL_PLAN.budgetMs / 1000} s)`;
    console.log(`\nWeft backends benchmark (${mode})`);
    console.log(machine(externals.map((backend) => backend.version)));
    console.log('');
    console.log(renderTable(rows));
    console.log('');
    console.log(
      'A run is timed end to end: validate, create the run row, execute every step (a Temporal activity or an ' +
        'Inngest step.run each), write the events, finish. µs per step = total / steps (per turn for the agent); ' +
        '"/ in-process" compares µs per step. Every run is checked (status completed, every step completed, the ' +
        `agent ran every turn). Inngest runs at most ${INNGEST_MAX_FLOW_STEPS} flow steps per run (its limit is 1,000 steps, ` +
        'one of which records the run end). Reported, not asserted.',
    );
    for (const note of notes) console.log(`- ${note}`);
  } finally {
    await runner?.close();
    for (const backend of externals) await backend.close().catch(() => undefined);
    await inProcessStore?.close();
    rmSync(dir, { recursive: true, force: true });
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

try {
  await main();
} catch (error) {
  console.error(`bench/backends failed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
}
