/**
 * The same flows on every backend, each beside a native program on the same engine, in the same
 * run: the in-process runner over SQLite (and PostgreSQL when reachable) beside the raw floor of
 * one INSERT+COMMIT per checkpoint; Temporal (a real dev server on loopback, Weft's worker in this
 * process) beside a plain Temporal workflow with no-op activities on its own task queue of the
 * same server; Inngest (the real dev server, Weft's function served from this process) beside a
 * plain Inngest function with `step.run`. For each scenario — sequential no-op steps, a parallel
 * fan-out + join, a 20-turn agent loop on the mock model with recorded fixtures — prints the
 * total time of a run, the time per step (per turn for the agent), Weft / native with its target
 * from issue 17, and the external engines / in-process.
 *
 *   pnpm bench:backends                  # 1,000 steps (999 on Inngest), 256-wide, 20 turns
 *   node bench/backends.ts --quick       # 100 steps (99 on Inngest), 64-wide, 20 turns, one timed run per external engine
 *   node bench/backends.ts --check       # also exits 1 when a ratio exceeds its target by > 25% (by hand, not CI)
 *   node bench/backends.ts --only temporal,fan-out --rounds 3   # some backends / scenarios, 3 timed rounds each
 *
 * Otherwise the exit code is non-zero only when something failed to run or a run did not produce
 * the expected result. The Temporal binary is .tools/bin/temporal (scripts/ensure-temporal.sh;
 * TEMPORAL_CLI overrides); DATABASE_URL selects the PostgreSQL server. See bench/README.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { InProcessRunner } from '../packages/adapters/src/inprocess/index.ts';
import { openPostgresStore, openSqliteStore, type RunStore } from '../packages/adapters/src/store/index.ts';
import { validateFlow } from '../packages/engine/src/index.ts';
import { checkFailures, fmt, machine, type ResultRow, renderTable } from './lib/backends-report.ts';
import { measurePaired, type Plan, type Scenario, type Sizes, scenarios, verifyRun } from './lib/backends-run.ts';
import { type BenchBackend, openInngest, openTemporal } from './lib/external-backends.ts';
import { hostToolSpecs, hostTools } from './lib/flows.ts';
import type { NativeBench } from './lib/native-agent.ts';
import { openNativeInngest } from './lib/native-inngest.ts';
import { openRawPostgres, openRawSqlite } from './lib/native-raw.ts';
import { openNativeTemporal } from './lib/native-temporal.ts';
import { type BenchDatabase, createBenchDatabase, DEFAULT_PG_URL } from './lib/postgres.ts';
import { benchRunner } from './lib/runner.ts';

const loadAtStart = loadavg();
/** What `--only` may name: backends, and the scenarios in the order `scenarios()` returns them. */
const ONLY_BACKENDS = ['in-process', 'temporal', 'inngest'] as const;
const SCENARIO_KEYS = ['sequential', 'fan-out', 'agent'] as const;
const HOST_TOOL_NAMES = Object.keys(hostTools);
/** The row the external engines' "/ in-process" column divides by. */
const IN_PROCESS_SQLITE = 'in-process (SQLite)';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    check: { type: 'boolean', default: false },
    backends: { type: 'string', default: 'temporal,inngest' },
    'no-pg': { type: 'boolean', default: false },
    only: { type: 'string' },
    rounds: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  console.log(
    'usage: node bench/backends.ts [--quick] [--check] [--no-pg] [--backends temporal,inngest]\n' +
      `  [--only ${[...ONLY_BACKENDS, ...SCENARIO_KEYS].join(',')}] [--rounds N]   (TEMPORAL_CLI / INNGEST_CLI / DATABASE_URL)`,
  );
  process.exit(0);
}

/**
 * `--only`: the backends and scenarios named run, the others do not (no backend named: every
 * backend `--backends` allows; no scenario named: all three). A quick look at one scenario on one
 * engine — or a profile of it — need not wait for the rest.
 */
const only = new Set((args.only ?? '').split(',').flatMap((name) => (name.trim() ? [name.trim()] : [])));
for (const name of only)
  if (!(ONLY_BACKENDS as readonly string[]).includes(name) && !(SCENARIO_KEYS as readonly string[]).includes(name)) {
    console.error(`bench/backends: --only ${name}: not one of ${[...ONLY_BACKENDS, ...SCENARIO_KEYS].join(', ')}`);
    process.exit(2);
  }
const onlyBackends = ONLY_BACKENDS.filter((name) => only.has(name));
const runsBackend = (name: (typeof ONLY_BACKENDS)[number]) => onlyBackends.length === 0 || only.has(name);
const onlyScenarios = SCENARIO_KEYS.filter((name) => only.has(name));
const runsScenario = (index: number) => onlyScenarios.length === 0 || only.has(SCENARIO_KEYS[index]!);
/** `--rounds N`: timed runs per scenario on the external engines (one run of an external engine is noisy). */
const rounds = args.rounds === undefined ? undefined : Number(args.rounds);
if (rounds !== undefined && !(Number.isInteger(rounds) && rounds >= 1)) {
  console.error(`bench/backends: --rounds ${args.rounds}: not a whole number ≥ 1`);
  process.exit(2);
}

/** Issue 17's targets for Weft / native: in-process per durable step, the external engines per step. */
const TARGETS = { inProcessSequential: 1.5, temporal: 1.2, inngest: 1.2 } as const;

const SIZES: Sizes = args.quick ? { steps: 100, fanOut: 64, turns: 20 } : { steps: 1_000, fanOut: 256, turns: 20 };
/** In-process and raw runs take milliseconds: even --quick takes a median, as one sample of 1 ms is noise. */
const IN_PROCESS_PLAN: Plan = args.quick
  ? { warmup: 1, warmupMs: 100, rounds: 3, minMs: 200, budgetMs: Number.POSITIVE_INFINITY }
  : { warmup: 2, warmupMs: 500, rounds: 5, minMs: 1_000, budgetMs: Number.POSITIVE_INFINITY };
/**
 * A run of 1,000 steps on an external engine takes a long time: no per-scenario warm-up (one
 * small run of every scenario warms the worker, the connections and the caches first), fewer
 * rounds, and a time budget for a scenario's rounds (a round is a Weft run and a native one).
 * Five rounds: with three, a fan-out's ratio moved by ±0.1 from one full run to the next.
 */
const EXTERNAL_PLAN: Plan = args.quick
  ? { warmup: 0, warmupMs: 0, rounds: rounds ?? 1, minMs: 0, budgetMs: Number.POSITIVE_INFINITY }
  : { warmup: 0, warmupMs: 0, rounds: rounds ?? 5, minMs: 0, budgetMs: 180_000 };
const WARM_UP_SIZES: Sizes = { steps: 10, fanOut: 8, turns: 2 };

/**
 * Inngest allows 1,000 steps per function run, and Weft's function uses one of its own to read a
 * seeded run's seed: there the sequential scenario is one step shorter (999, or 99 with --quick),
 * for the native function too (issue 17 names 999).
 */
const INNGEST_MAX_FLOW_STEPS = 999;

/** Weft on one engine and the native program on the same engine, with what they run and how. */
interface Pair {
  /** The Weft row's label. */
  label: string;
  plan: Plan;
  sizes: Sizes;
  store: RunStore;
  /** Starts a Weft run of the scenario; resolves with its id once it has ended. */
  start(scenario: Scenario): Promise<string>;
  native: NativeBench;
  target(scenario: Scenario): number | undefined;
  external: boolean;
}

function inProcessPair(label: string, store: RunStore, runner: InProcessRunner, native: NativeBench): Pair {
  return {
    label,
    plan: IN_PROCESS_PLAN,
    sizes: SIZES,
    store,
    start: async (scenario) =>
      (await runner.start(scenario.doc, {}, scenario.fixtures ? { fixtures: scenario.fixtures } : {})).runId,
    native,
    target: (scenario) => (scenario.sequential ? TARGETS.inProcessSequential : undefined),
    external: false,
  };
}

function externalPair(backend: BenchBackend, native: NativeBench): Pair {
  const inngest = backend.name === 'inngest';
  return {
    label: backend.label,
    plan: EXTERNAL_PLAN,
    sizes: inngest ? { ...SIZES, steps: Math.min(SIZES.steps - 1, INNGEST_MAX_FLOW_STEPS) } : SIZES,
    store: backend.store,
    async start(scenario) {
      // Validation is in the timing, as runner.start() validates too.
      const validated = validateFlow(scenario.doc, { hostTools: HOST_TOOL_NAMES });
      if (!validated.ok) {
        throw new Error(`${scenario.name}: invalid flow: ${JSON.stringify(validated.errors.slice(0, 3))}`);
      }
      return backend.run(validated.flow, scenario.fixtures);
    },
    native,
    // Issue 17: Temporal in every scenario; Inngest at 100/999 steps and on the fan-out.
    target: (scenario) =>
      inngest ? (scenario.native.kind === 'agent' ? undefined : TARGETS.inngest) : TARGETS.temporal,
    external: true,
  };
}

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-backends-'));
  /** Run in reverse order at the end (workers before their servers, stores before their database). */
  const closers: (() => unknown)[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await Promise.resolve(close()).catch(() => undefined);
  };
  const stop = () => void closeAll().finally(() => process.exit(130));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const pairs: Pair[] = [];
  const versions: string[] = [];
  const notes: string[] = [];
  try {
    if (!runsBackend('in-process')) notes.push('In-process rows skipped: --only names other backends.');
    else {
      const sqliteStore = await openSqliteStore(join(dir, 'in-process.db'));
      closers.push(() => sqliteStore.close());
      const sqliteRunner = benchRunner(sqliteStore);
      closers.push(() => sqliteRunner.close());
      const rawSqlite = openRawSqlite(join(dir, 'raw.db'));
      closers.push(() => rawSqlite.close());
      pairs.push(inProcessPair(IN_PROCESS_SQLITE, sqliteStore, sqliteRunner, rawSqlite));

      const adminUrl = process.env.DATABASE_URL || DEFAULT_PG_URL;
      let database: BenchDatabase | undefined;
      if (args['no-pg']) notes.push('PostgreSQL rows skipped: --no-pg.');
      else {
        try {
          database = await createBenchDatabase(adminUrl);
        } catch (error) {
          notes.push(`PostgreSQL rows skipped: ${redactUrl(adminUrl)} unreachable (${(error as Error).message}).`);
        }
      }
      if (database) {
        const db = database;
        closers.push(() => db.drop());
        const pgStore = await openPostgresStore(db.url);
        closers.push(() => pgStore.close());
        const pgRunner = benchRunner(pgStore);
        closers.push(() => pgRunner.close());
        const rawPostgres = await openRawPostgres(db.url);
        closers.push(() => rawPostgres.close());
        pairs.push(inProcessPair('in-process (PostgreSQL)', pgStore, pgRunner, rawPostgres));
        versions.push(`PostgreSQL ${db.serverVersion}`);
        notes.push(`PostgreSQL: throwaway database on ${redactUrl(adminUrl)} (dropped at the end).`);
      }
    }

    const wanted = new Set((args.backends ?? '').split(',').map((name) => name.trim()));
    const setup = { dir, hostTools, hostToolSpecs };
    for (const name of ['temporal', 'inngest'] as const) {
      if (!wanted.has(name) || !runsBackend(name)) continue;
      progress(
        `starting the ${name} dev server, Weft's ${name === 'temporal' ? 'worker' : 'function'} and the native one`,
      );
      const backend = await (name === 'temporal' ? openTemporal(setup) : openInngest(setup));
      closers.push(() => backend.close());
      const startedAt = performance.now();
      const native = await (name === 'temporal'
        ? openNativeTemporal(backend.server)
        : openNativeInngest(backend.server));
      closers.push(() => native.close());
      pairs.push(externalPair(backend, native));
      versions.push(backend.version);
      notes.push(
        `${backend.label}: server up and ready in ${fmt(backend.setupMs)} ms, the native program in ${fmt(performance.now() - startedAt)} ms (not in any row).`,
      );
    }
    for (const pair of pairs) notes.push(`${pair.native.label}: ${pair.native.describe}.`);

    progress('warm-up: one small run of every scenario on every backend, Weft and native');
    for (const pair of pairs) {
      const small = scenarios({ ...WARM_UP_SIZES, steps: Math.min(WARM_UP_SIZES.steps, pair.sizes.steps) });
      for (const scenario of small.filter((_, index) => runsScenario(index))) {
        await verifyRun(pair.store, await pair.start(scenario), scenario, pair.label);
        scenario.verifyNative(await pair.native.run(scenario.native));
      }
    }

    const rows: ResultRow[] = [];
    const perUnitInProcess: number[] = [];
    for (let index = 0; index < SCENARIO_KEYS.length; index++) {
      if (!runsScenario(index)) continue;
      for (const pair of pairs) {
        const scenario = scenarios(pair.sizes)[index]!;
        progress(`${scenario.name}: ${pair.label}, then ${pair.native.label}`);
        const { weft, native, ratio } = await measurePaired(
          pair.plan,
          { once: () => pair.start(scenario), verify: (runId) => verifyRun(pair.store, runId, scenario, pair.label) },
          { once: () => pair.native.run(scenario.native), verify: (result) => scenario.verifyNative(result) },
          progress,
        );
        const perUnit = weft.medianMs / scenario.units;
        if (pair.label === IN_PROCESS_SQLITE) perUnitInProcess[index] = perUnit;
        const inProcess = perUnitInProcess[index];
        const base = { scenario: scenario.name, units: scenario.units, unit: scenario.unit };
        const target = pair.target(scenario);
        rows.push({
          ...base,
          backend: pair.label,
          runsMs: weft.runsMs,
          medianMs: weft.medianMs,
          vsNative: ratio,
          ...(target === undefined ? {} : { target }),
          ...(pair.external && inProcess !== undefined ? { vsInProcess: perUnit / inProcess } : {}),
        });
        rows.push({ ...base, backend: pair.native.label, runsMs: native.runsMs, medianMs: native.medianMs });
        if (!pair.external) continue;
        for (const [who, measured] of [
          [pair.label, weft],
          [pair.native.label, native],
        ] as const) {
          notes.push(
            `${scenario.name} on ${who}: ${measured.runsMs.length} timed run${measured.runsMs.length === 1 ? '' : 's'} completed and verified ` +
              `(${measured.runsMs.map((ms) => `${fmt(ms)} ms`).join(', ')})` +
              (measured.budgetHit ? `; timed rounds cut at the ${EXTERNAL_PLAN.budgetMs / 1000} s budget` : '') +
              '.',
          );
        }
      }
    }
    await closeAll();

    const mode = args.quick
      ? `--quick: warm-up runs, then in-process and raw: the median of ≥ ${IN_PROCESS_PLAN.rounds} timed rounds (≥ ${IN_PROCESS_PLAN.minMs} ms); external engines: ${EXTERNAL_PLAN.rounds} timed round${EXTERNAL_PLAN.rounds === 1 ? '' : 's'}`
      : `in-process and raw: ≥ ${IN_PROCESS_PLAN.warmup} warm-up rounds (≥ ${IN_PROCESS_PLAN.warmupMs} ms), median of ≥ ${IN_PROCESS_PLAN.rounds} timed rounds (≥ ${IN_PROCESS_PLAN.minMs} ms); ` +
        `external engines: one small warm-up run per scenario, then the median of ${EXTERNAL_PLAN.rounds} timed rounds (fewer past ${EXTERNAL_PLAN.budgetMs / 1000} s); ` +
        'a round is one Weft run and one native run in turn, and "weft / native" is the median of the rounds\' ratios';
    console.log(`\nWeft backends benchmark (${mode})`);
    console.log(machine(loadAtStart, versions));
    console.log('');
    console.log(renderTable(rows));
    console.log('');
    console.log(
      'A Weft run is timed end to end: validate, create the run row, execute every step (a Temporal activity or an ' +
        'Inngest step.run each), write the events, finish. A native run: start, every step, the end seen by the bench. ' +
        'µs per step = total / steps (per turn for the agent); "weft / native" compares the two on the same engine and ' +
        'database, in this run; "/ in-process" compares µs per step with in-process (SQLite). Targets (issue 17): ' +
        `in-process sequential ≤ ${TARGETS.inProcessSequential}× raw commit, Temporal ≤ ${TARGETS.temporal}× native, Inngest ≤ ${TARGETS.inngest}× native ` +
        '(sequential and fan-out); ✓ met, ✗ missed, ✗✗ missed by more than 25% (what --check fails). Every run is checked ' +
        '(Weft: status completed, every step completed, the agent ran every turn; native: its result).',
    );
    for (const note of notes) console.log(`- ${note}`);
    if (args.check) {
      const failures = checkFailures(rows);
      console.log(
        failures.length === 0
          ? '\n--check: every ratio within 25% of its target.'
          : `\n--check: FAILED\n${failures.map((line) => `  ${line}`).join('\n')}`,
      );
      if (failures.length > 0) process.exitCode = 1;
    }
  } finally {
    await closeAll();
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
