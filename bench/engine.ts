/**
 * Per-step overhead of the Weft engine and the in-process runner, each next to a raw baseline
 * measured in the same run. Prints a table with the target and a verdict per row; targets are
 * reported, not asserted: the exit code is non-zero only when something failed to run.
 *
 *   pnpm bench:engine                           # full run (~1–2 min); re-runs itself with --expose-gc
 *   node bench/engine.ts --quick                # smoke: 1 timed run per row (~15 s)
 *   node bench/engine.ts --no-pg                # skip PostgreSQL
 *   node bench/engine.ts --only 2,5             # only these rows (e.g. under --cpu-prof)
 *   DATABASE_URL=postgres://user@host:5432/db node bench/engine.ts
 *
 * See bench/README.md for what each row measures.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BenchContext, Sizes } from './lib/context.ts';
import { hasGc, type Plan } from './lib/measure.ts';
import { type BenchDatabase, createBenchDatabase, DEFAULT_PG_URL } from './lib/postgres.ts';
import { missed, type Row, renderTable } from './lib/table.ts';
import {
  agentOnSqlite,
  fanOutOnSqlite,
  postgresSkipped,
  sequentialOnPostgres,
  sequentialOnSqlite,
} from './scenarios/durable.ts';
import { agentInMemory, sequentialInMemory } from './scenarios/memory.ts';
import { parkedRuns } from './scenarios/parked.ts';
import { agentBesideGenerateText, runsInFlight, sequentialThroughRunner } from './scenarios/runner.ts';
import { sandboxCalls } from './scenarios/sandbox.ts';

const SIZES: Sizes = { steps: 1_000, fanOut: 256, turns: 20, parked: 1_000 };
const FULL: Plan = { warmup: 2, warmupMs: 500, rounds: 5, minMs: 1_000 };
const QUICK: Plan = { warmup: 1, warmupMs: 100, rounds: 1, minMs: 0 };
const GROUPS = ['1', '2', '3', '4', '5', '6', '7', '8'] as const;

// Row 6 needs global.gc: without --expose-gc, run this same script again with it.
if (!hasGc()) {
  const script = fileURLToPath(import.meta.url);
  const child = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, script, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(child.status ?? 1);
}

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'no-pg': { type: 'boolean', default: false },
    /** e.g. --only 2,5: run only these rows (handy under --cpu-prof). */
    only: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  console.log(
    'usage: node bench/engine.ts [--quick] [--no-pg] [--only 1,2,…,8]   (DATABASE_URL selects the PostgreSQL server)',
  );
  process.exit(0);
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

const loadAtStart = loadavg();

function machine(pgVersion: string | undefined): string {
  const cpu = cpus();
  const sqlite = new DatabaseSync(':memory:');
  const sqliteVersion = String(sqlite.prepare('select sqlite_version() as v').get()?.v ?? '?');
  sqlite.close();
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  return [
    `machine: ${cpu.length} CPU × ${cpu[0]?.model.trim() ?? 'unknown'}, ${process.platform}/${process.arch}; ` +
      `load average ${load(loadAtStart)} at start, ${load(loadavg())} at end (other work on the machine inflates wall times)`,
    `node ${process.version}, SQLite ${sqliteVersion} (node:sqlite, WAL, synchronous=NORMAL, temp dir ${tmpdir()})` +
      (pgVersion ? `, PostgreSQL ${pgVersion}` : ''),
  ].join('\n');
}

function selectedGroups(only: string | undefined): Set<string> {
  if (only === undefined) return new Set(GROUPS);
  const picked = new Set(only.split(',').map((group) => group.trim()));
  const unknown = [...picked].filter((group) => !(GROUPS as readonly string[]).includes(group));
  if (unknown.length > 0) throw new Error(`--only: unknown row ${unknown.join(', ')}; rows are ${GROUPS.join(', ')}`);
  return picked;
}

async function main(): Promise<void> {
  const plan = args.quick ? QUICK : FULL;
  const run = selectedGroups(args.only);
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-'));
  const ctx: BenchContext = {
    plan,
    sizes: SIZES,
    dir,
    notes: [],
    progress: (message) => process.stderr.write(`bench: ${message}\n`),
  };
  const rows: Row[] = [];
  let database: BenchDatabase | undefined;
  let pgSkip: string | undefined;
  try {
    if (args['no-pg']) pgSkip = 'skipped: --no-pg';
    else if (run.has('3')) {
      const adminUrl = process.env.DATABASE_URL || DEFAULT_PG_URL;
      try {
        database = await createBenchDatabase(adminUrl);
        ctx.notes.push(`row 3: throwaway database on ${redactUrl(adminUrl)} (dropped at the end).`);
      } catch (error) {
        pgSkip = `skipped: PostgreSQL at ${redactUrl(adminUrl)} unreachable (${(error as Error).message})`;
      }
    }

    if (run.has('1')) {
      ctx.progress('1  sequential, in memory');
      rows.push(await sequentialInMemory(ctx));
      rows.push(await sequentialThroughRunner(ctx));
    }
    if (run.has('2')) {
      ctx.progress('2  sequential, SQLite');
      rows.push(await sequentialOnSqlite(ctx));
    }
    if (run.has('3') && database) {
      ctx.progress('3  sequential, PostgreSQL');
      rows.push(await sequentialOnPostgres(ctx, database.url));
    } else if (run.has('3')) {
      rows.push(postgresSkipped(ctx, pgSkip ?? 'skipped'));
      ctx.notes.push(`row 3: ${pgSkip}`);
    }
    if (run.has('4')) {
      ctx.progress('4  fan-out, SQLite');
      rows.push(...(await fanOutOnSqlite(ctx)));
    }
    if (run.has('5')) {
      ctx.progress('5  agent loop, in memory and SQLite');
      rows.push(await agentInMemory(ctx));
      rows.push(await agentOnSqlite(ctx));
      rows.push(...(await agentBesideGenerateText(ctx)));
    }
    if (run.has('6')) {
      ctx.progress('6  parked runs, SQLite');
      rows.push(...(await parkedRuns(ctx)));
    }
    if (run.has('8')) {
      ctx.progress('8  runs in flight, SQLite');
      rows.push(...runsInFlight(ctx));
    }
    if (run.has('7')) {
      ctx.progress('7  code step in the sandbox');
      rows.push(await sandboxCalls(ctx));
    }

    const mode = args.quick
      ? '--quick: ≥ 1 warm-up run (≥ 100 ms) + 1 timed run per row'
      : `per row: ≥ ${plan.warmup} warm-up runs (≥ ${plan.warmupMs} ms), then the median of ≥ ${plan.rounds} timed runs (≥ ${plan.minMs} ms)`;
    console.log(`\nWeft engine benchmark (${mode})`);
    console.log(machine(database?.serverVersion));
    console.log('');
    console.log(renderTable(rows));
    console.log('');
    console.log('overhead = weft − raw; ratio = weft / raw. Targets are reported, not asserted.');
    for (const note of ctx.notes) console.log(`- ${note}`);
    const misses = missed(rows);
    console.log(
      misses.length === 0 ? '\nall targets met' : `\nmissed targets: ${misses.map((row) => row.id).join(', ')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  }
}

await main();
