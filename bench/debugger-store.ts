/**
 * The runs screen's queries over 100,000 runs, on SQLite and on PostgreSQL: what `runs.search`
 * does (the store's filtered, full-text searched, keyset-paged query, then each row priced) for
 * the first page with no filter, a flow + status filter, text searches (a word in one run, a
 * word in ~1% of runs, two common words, a word with a status filter) and the page after a
 * cursor. Each number is printed next to a baseline measured in the same run on the same table:
 * a plain `SELECT <the same columns> FROM runs LIMIT 50` through the raw driver.
 *
 *   node bench/debugger-store.ts                  # both dialects, 100,000 runs
 *   node bench/debugger-store.ts --no-pg          # SQLite only
 *   node bench/debugger-store.ts --runs 20000     # fewer runs
 *   DATABASE_URL=postgres://user@host/db node bench/debugger-store.ts
 *
 * The runs are written in batches through the raw driver (the store's own triggers index them
 * as they go in), not run by the engine: filling takes seconds, not the hours 100,000 runs
 * would. Targets (search under 200 ms) are reported, not asserted. PostgreSQL is ANALYZEd after
 * the load (autovacuum would do it); SQLite is not (the store never runs ANALYZE).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { type SearchInput, searchRunSummaries } from '../apps/api/src/server/run-summaries.ts';
import { openPostgresStore, openSqliteStore, type RunStore } from '../packages/adapters/src/store/index.ts';
import { median } from './lib/measure.ts';
import { createBenchDatabase, DEFAULT_PG_URL } from './lib/postgres.ts';

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1]) || 100_000;
const WITH_PG = !args.includes('--no-pg');
const TARGET_MS = 200;
const BATCH = 5_000;
const RARE = 'zanzibarite';
const COMMON = 'quarterly';

type PgClient = {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
};
const pg = createRequire(new URL('../packages/adapters/package.json', import.meta.url))('pg') as {
  Client: new (config: { connectionString: string }) => PgClient;
};

/** A seeded generator (mulberry32): the same runs every time. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = `order refund invoice charge customer account payment shipping delivery parcel late damaged
  password login error timeout failed retry support ticket priority urgent billing subscription plan upgrade
  downgrade cancel renewal discount coupon tax receipt address warehouse carrier tracking return exchange
  product size colour broken missing wrong item package courier weekend monday friday morning evening
  please thanks hello regards manager escalate agent reply summary report weekly monthly analysis growth
  revenue forecast budget meeting notes contract legal review approve reject draft publish article blog
  translate german french spanish english chinese japanese api webhook integration slack email phone`
  .split(/\s+/)
  .filter(Boolean);
const FLOWS = Array.from({ length: 20 }, (_, i) =>
  ['support-triage', 'doc-summary', 'research-agent', 'invoice-approval', 'weekly-digest'][i % 5]!.concat(
    i < 5 ? '' : `-${Math.floor(i / 5) + 1}`,
  ),
);
const MODELS = [
  'openai:gpt-4o-mini',
  'openai:gpt-4o',
  'anthropic:claude-3-5-haiku-latest',
  'mock:echo',
  'local:llama3',
];
/** A flow snapshot of a believable size (each run row carries one; a list must not read it). */
const FLOW_DOC = JSON.stringify({
  irVersion: 1,
  id: 'x',
  name: 'x',
  steps: Array.from({ length: 8 }, (_, i) => ({
    id: `step${i}`,
    type: 'llm',
    model: 'openai:gpt-4o-mini',
    prompt: 'Answer {{ input.ticket }} politely and briefly, citing the order.',
  })),
});

interface Generated {
  runs: SQLInputValue[][];
  usage: SQLInputValue[][];
}

const RUN_COLUMNS = [
  'id',
  'flow_id',
  'flow_version',
  'flow',
  'input',
  'status',
  'output',
  'error',
  'backend',
  'parent_run_id',
  'parent_step_id',
  'fixtures',
  'created_at',
  'updated_at',
  'ended_at',
  'input_tokens',
  'output_tokens',
] as const;
const USAGE_COLUMNS = ['run_id', 'model', 'free', 'turns', 'input_tokens', 'output_tokens'] as const;
const INTEGER_COLUMNS = new Set([
  'flow_version',
  'created_at',
  'updated_at',
  'ended_at',
  'input_tokens',
  'output_tokens',
  'turns',
]);

/** Runs `from` … `to - 1`, oldest first, over the 30 days before `end`. */
function generate(from: number, to: number, end: number, roots: string[]): Generated {
  const next = random(1_000 + from);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  // Skewed: the first words are the common ones, as in real text.
  const word = () => WORDS[Math.floor(WORDS.length * next() ** 2.5)]!;
  const sentence = (n: number) => Array.from({ length: n }, word).join(' ');
  const out: Generated = { runs: [], usage: [] };
  const start = end - 30 * 86_400_000;
  for (let i = from; i < to; i++) {
    const id = `run_${i.toString(16).padStart(8, '0')}${Math.floor(next() * 2 ** 32)
      .toString(16)
      .padStart(8, '0')}`;
    const roll = next();
    const status =
      i >= RUNS - 20
        ? 'running'
        : roll < 0.08
          ? 'failed'
          : roll < 0.1
            ? 'cancelled'
            : roll < 0.12
              ? 'waiting'
              : 'completed';
    const createdAt = start + Math.floor(((end - start) * i) / RUNS);
    const ended = status === 'completed' || status === 'failed' || status === 'cancelled';
    const endedAt = ended ? createdAt + 200 + Math.floor(next() * 20_000) : null;
    const planted = `${next() < 0.01 ? ` ${COMMON}` : ''}${i === Math.floor(RUNS * 0.4) ? ` ${RARE}` : ''}`;
    const input = {
      ticket: `${sentence(8 + Math.floor(next() * 25))}${planted}`,
      customer: `cust-${Math.floor(next() * 5000)}`,
      orderId: Math.floor(next() * 1e6),
    };
    const output =
      status === 'completed'
        ? { reply: sentence(15 + Math.floor(next() * 40)), category: pick(['billing', 'shipping', 'account']) }
        : null;
    const error =
      status === 'failed'
        ? { name: 'StepFailedError', message: `provider refused: ${sentence(6)}`, stepId: 'reply' }
        : null;
    const child = roots.length > 0 && next() < 0.05;
    const parent = child ? roots[Math.floor(next() * roots.length)]! : null;
    if (!child) roots.push(id);
    if (roots.length > 500) roots.shift();
    const model = pick(MODELS);
    const tokensIn = ended ? 100 + Math.floor(next() * 4000) : 0;
    const tokensOut = ended ? 20 + Math.floor(next() * 800) : 0;
    const flowId = pick(FLOWS);
    out.runs.push([
      id,
      flowId,
      1 + Math.floor(next() * 3),
      FLOW_DOC,
      JSON.stringify(input),
      status,
      output === null ? null : JSON.stringify(output),
      error === null ? null : JSON.stringify(error),
      pick(['inprocess', 'inprocess', 'inprocess', 'temporal', 'inngest']),
      parent,
      parent ? 'spawn' : null,
      next() < 0.02 ? '{"reply":[{"text":"recorded"}]}' : null,
      createdAt,
      endedAt ?? createdAt,
      endedAt,
      tokensIn,
      tokensOut,
    ]);
    if (tokensIn > 0)
      out.usage.push([
        id,
        model,
        model.startsWith('mock:') ? 'mock' : '',
        1 + Math.floor(next() * 3),
        tokensIn,
        tokensOut,
      ]);
  }
  return out;
}

/** Batched INSERTs through node:sqlite, a transaction per batch; the FTS triggers index as rows go in. */
function fillSqlite(path: string, end: number): void {
  const db = new DatabaseSync(path, { timeout: 10_000 });
  const insertRun = db.prepare(
    `insert into runs (${RUN_COLUMNS.join(', ')}) values (${RUN_COLUMNS.map(() => '?').join(', ')})`,
  );
  const insertUsage = db.prepare(`insert into run_usage (${USAGE_COLUMNS.join(', ')}) values (?, ?, ?, ?, ?, ?)`);
  const roots: string[] = [];
  for (let from = 0; from < RUNS; from += BATCH) {
    const batch = generate(from, Math.min(RUNS, from + BATCH), end, roots);
    db.exec('begin');
    for (const row of batch.runs) insertRun.run(...row);
    for (const row of batch.usage) insertUsage.run(...row);
    db.exec('commit');
  }
  db.close();
}

/** Batched INSERT … SELECT FROM unnest(arrays): one statement per batch; the trigger computes each tsvector. */
async function fillPostgres(url: string, end: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const insert = (table: string, columns: readonly string[], rows: SQLInputValue[][]) => {
    const arrays = columns.map((_, c) => rows.map((row) => row[c] ?? null));
    const casts = columns.map((column, c) => `$${c + 1}::${INTEGER_COLUMNS.has(column) ? 'bigint' : 'text'}[]`);
    return client.query(
      `insert into ${table} (${columns.join(', ')}) select * from unnest(${casts.join(', ')})`,
      arrays,
    );
  };
  try {
    const roots: string[] = [];
    for (let from = 0; from < RUNS; from += BATCH) {
      const batch = generate(from, Math.min(RUNS, from + BATCH), end, roots);
      await insert('runs', RUN_COLUMNS, batch.runs);
      await insert('run_usage', USAGE_COLUMNS, batch.usage);
    }
    await client.query('analyze');
  } finally {
    await client.end();
  }
}

interface Case {
  name: string;
  input: SearchInput;
  /** Reads the previous page's cursor first (not timed). */
  afterFirstPage?: boolean;
}

const CASES: Case[] = [
  { name: 'first page, no filter', input: {} },
  { name: 'flow + status filter', input: { flowId: 'support-triage', status: ['failed'] } },
  { name: `text: "${RARE}" (1 run)`, input: { text: RARE } },
  { name: `text: "${COMMON}" (~1% of runs)`, input: { text: COMMON } },
  { name: 'text: "refund order" (common words)', input: { text: 'refund order' } },
  { name: `text: "${COMMON}" + status failed`, input: { text: COMMON, status: ['failed'] } },
  { name: `text: "${COMMON}", second page`, input: { text: COMMON }, afterFirstPage: true },
];

interface Result {
  dialect: string;
  name: string;
  rows: number;
  ms: number;
  p95: number;
  baseline: number;
}

const ROUNDS = 25;

async function timed(fn: () => Promise<unknown>): Promise<{ median: number; p95: number }> {
  for (let i = 0; i < 3; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { median: median(times), p95: times[Math.floor(times.length * 0.95)]! };
}

async function measure(dialect: string, store: RunStore, baseline: () => Promise<unknown>): Promise<Result[]> {
  const base = (await timed(baseline)).median;
  const results: Result[] = [];
  for (const c of CASES) {
    const cursor = c.afterFirstPage ? (await searchRunSummaries(store, c.input)).nextCursor : null;
    const input = { ...c.input, ...(cursor ? { cursor } : {}) };
    const rows = (await searchRunSummaries(store, input)).runs.length;
    const time = await timed(() => searchRunSummaries(store, input));
    results.push({ dialect, name: c.name, rows, ms: time.median, p95: time.p95, baseline: base });
  }
  return results;
}

const LIST_COLUMNS = `id, flow_id, flow_version, status, backend, substr(input, 1, 161) as input_preview,
  substr(output, 1, 161) as output_preview, error, parent_run_id, parent_step_id, replay_of_run_id,
  replay_of_checkpoint, created_at, updated_at, ended_at, input_tokens, output_tokens`;

async function benchSqlite(): Promise<{ results: Result[]; fillMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-debugger-'));
  try {
    const path = join(dir, 'weft.db');
    const store = await openSqliteStore(path);
    const started = performance.now();
    fillSqlite(path, Date.now());
    const fillMs = performance.now() - started;
    const raw = new DatabaseSync(path);
    const plain = raw.prepare(`select ${LIST_COLUMNS} from runs limit 50`);
    try {
      return { results: await measure('sqlite', store, async () => plain.all()), fillMs };
    } finally {
      raw.close();
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchPostgres(): Promise<{ results: Result[]; fillMs: number; version: string }> {
  const database = await createBenchDatabase(process.env.DATABASE_URL || DEFAULT_PG_URL);
  try {
    const store = await openPostgresStore(database.url);
    const started = performance.now();
    await fillPostgres(database.url, Date.now());
    const fillMs = performance.now() - started;
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const results = await measure('postgres', store, () => client.query(`select ${LIST_COLUMNS} from runs limit 50`));
      return { results, fillMs, version: database.serverVersion };
    } finally {
      await client.end();
      await store.close();
    }
  } finally {
    await database.drop();
  }
}

function print(results: Result[]): void {
  const header = ['dialect', 'query', 'rows', 'median', 'p95', 'baseline', 'ratio', `target < ${TARGET_MS} ms`];
  const lines = results.map((r) => [
    r.dialect,
    r.name,
    String(r.rows),
    `${r.ms.toFixed(2)} ms`,
    `${r.p95.toFixed(2)} ms`,
    `${r.baseline.toFixed(3)} ms`,
    `${(r.ms / r.baseline).toFixed(1)}×`,
    r.ms < TARGET_MS ? 'ok' : 'MISS',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i]!.length)));
  const row = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  console.log(row(header));
  for (const line of lines) console.log(row(line));
}

const sqliteVersion = (new DatabaseSync(':memory:').prepare('select sqlite_version() as v').get() as { v: string }).v;
console.log(`runs screen store benchmark: ${RUNS.toLocaleString('en')} runs`);
console.log(
  `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, SQLite ${sqliteVersion}, load ${loadavg()[0]!.toFixed(2)}`,
);
const all: Result[] = [];
const sqlite = await benchSqlite();
console.log(`sqlite: filled in ${(sqlite.fillMs / 1000).toFixed(1)} s`);
all.push(...sqlite.results);
if (WITH_PG) {
  try {
    const postgres = await benchPostgres();
    console.log(`postgres ${postgres.version}: filled in ${(postgres.fillMs / 1000).toFixed(1)} s (then ANALYZE)`);
    all.push(...postgres.results);
  } catch (error) {
    console.log(`postgres: skipped (${(error as Error).message})`);
  }
}
console.log('');
print(all);
console.log(
  `\nbaseline: select <the list's columns> from runs limit 50 (no filter, no order), raw driver, same table.`,
);
console.log(
  `median and p95 of ${ROUNDS} calls after 3 warm-up calls; each call is runs.search's work (query + pricing).`,
);
console.log(`load at end ${loadavg()[0]!.toFixed(2)}`);
