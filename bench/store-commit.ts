/**
 * What one group commit costs, next to the floor it is measured against: a raw single-row
 * INSERT + COMMIT on the same kind of connection. A commit here is what the runner writes after
 * a step: 1 journal entry + 2 events (step.started, step.completed).
 *
 * On SQLite it also counts WAL frames (pages) written per commit: with synchronous=NORMAL a
 * commit's cost is roughly proportional to them, which is what separates the two numbers.
 *
 *   node bench/store-commit.ts                 # SQLite only
 *   node bench/store-commit.ts postgres://…/db  # also PostgreSQL (creates tables in db)
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openPostgresStore, openSqliteStore } from '../packages/adapters/src/store/index.ts';
import type { CommitBatch, RunStore } from '../packages/adapters/src/store/types.ts';

// `pg` is a dependency of @weft/adapters, not of the workspace root (as in lib/postgres.ts).
const pg = createRequire(new URL('../packages/adapters/package.json', import.meta.url))('pg') as {
  Client: new (config: {
    connectionString: string;
  }) => {
    connect(): Promise<void>;
    query(text: string, values?: unknown[]): Promise<unknown>;
    end(): Promise<void>;
  };
};

const ROUNDS = 5;

/** Median over rounds of the mean µs per call within a round, after a warm-up round. */
async function measure(iterations: number, fn: () => unknown): Promise<number> {
  for (let k = 0; k < iterations; k++) await fn();
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    for (let k = 0; k < iterations; k++) await fn();
    rounds.push(((performance.now() - start) * 1000) / iterations);
  }
  return rounds.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)] ?? Number.NaN;
}

function batch(runId: string, i: number): CommitBatch {
  const stepId = `agent/llm#${i}`;
  const output = { text: `answer ${i}`, usage: { inputTokens: 12, outputTokens: 5 } };
  return {
    runId,
    journal: [
      { stepId, kind: 'model-turn', inputHash: 'sha256:0123456789abcdef', status: 'completed', output, error: null },
    ],
    events: [
      { type: 'step.started', stepId, stepType: 'llm' },
      { type: 'step.completed', stepId, output },
    ],
  };
}

/**
 * As the runner uses the store: create the run, claim it, then commit step after step to it
 * (each commit's cost must not grow with the run: 120,000 commits go to this one run).
 */
async function storeCommit(store: RunStore, iterations: number): Promise<{ us: number; commit: () => unknown }> {
  const runId = `bench-${Date.now()}`;
  await store.createRun({ id: runId, flowId: 'bench', flowVersion: 1, flow: {}, input: {}, backend: 'inprocess' });
  const now = Date.now();
  if (!(await store.claimRun(runId, { owner: 'bench', leaseUntil: now + 3_600_000, now }))) {
    throw new Error('bench: could not claim the run');
  }
  let i = 0;
  const commit = () => store.commit([batch(runId, i++)]);
  return { us: await measure(iterations, commit), commit };
}

/** WAL frames per call: empty the WAL from a second connection, run `n` calls, measure the WAL. */
async function walFrames(path: string, n: number, fn: () => unknown): Promise<number> {
  const side = new DatabaseSync(path);
  side.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const pageSize = side.prepare('PRAGMA page_size').get()?.page_size as number;
  side.close();
  // Fewer frames than the auto-checkpoint threshold (1000), so none is reset midway.
  for (let k = 0; k < n; k++) await fn();
  const frameBytes = 24 + pageSize;
  return (statSync(`${path}-wal`).size - 32) / frameBytes / n;
}

async function sqlite(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-'));
  try {
    const raw = new DatabaseSync(join(dir, 'raw.db'));
    raw.exec('PRAGMA journal_mode = WAL');
    raw.exec('PRAGMA synchronous = NORMAL');
    raw.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, payload TEXT NOT NULL)');
    const [begin, insert, commit] = ['BEGIN', 'INSERT INTO t (run_id, payload) VALUES (?, ?)', 'COMMIT'].map((s) =>
      raw.prepare(s),
    );
    let i = 0;
    const rawCommit = () => {
      begin?.run();
      insert?.run('bench', JSON.stringify({ type: 'step.completed', stepId: `s${i++}`, output: { text: 'x' } }));
      commit?.run();
    };
    const rawUs = await measure(20_000, rawCommit);
    const rawFrames = await walFrames(join(dir, 'raw.db'), 100, rawCommit);
    raw.close();

    const store = await openSqliteStore(join(dir, 'weft.db'));
    const { us: storeUs, commit: storeCommitOnce } = await storeCommit(store, 20_000);
    const storeFrames = await walFrames(join(dir, 'weft.db'), 100, storeCommitOnce);
    await store.close();
    report('sqlite', rawUs, storeUs);
    console.log(`         WAL frames per commit: raw ${rawFrames.toFixed(2)}, store ${storeFrames.toFixed(2)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    'CREATE TEMP TABLE bench_raw (id serial PRIMARY KEY, run_id text NOT NULL, payload text NOT NULL)',
  );
  let i = 0;
  const rawUs = await measure(1_000, async () => {
    await client.query('BEGIN');
    await client.query('INSERT INTO bench_raw (run_id, payload) VALUES ($1, $2)', ['bench', `{"i":${i++}}`]);
    await client.query('COMMIT');
  });
  await client.end();

  const store = await openPostgresStore(url);
  const { us: storeUs } = await storeCommit(store, 1_000);
  await store.close();
  report('postgres', rawUs, storeUs);
}

function report(name: string, rawUs: number, storeUs: number): void {
  console.log(
    `${name.padEnd(8)} raw INSERT+COMMIT ${rawUs.toFixed(1).padStart(7)} µs   store.commit(1 journal + 2 events) ${storeUs
      .toFixed(1)
      .padStart(7)} µs   ratio ${(storeUs / rawUs).toFixed(2)}×`,
  );
}

await sqlite();
const url = process.argv[2] ?? process.env.DATABASE_URL;
if (url?.startsWith('postgres')) await postgres(url);
