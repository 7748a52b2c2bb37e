/**
 * SQLite behaviours that need real processes: a commit survives SIGKILL right after it returns
 * (the crash model WAL + synchronous=NORMAL is chosen for), and processes committing to the same
 * file at once keep each run's seq unique and increasing (each one's cached end of the log is
 * only trusted as far as its INSERT finds the next position free). Then the run log's layout.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type CommitBatch, openSqliteStore } from './index.ts';

const storeModule = fileURLToPath(new URL('./index.ts', import.meta.url));

// Commits `count` step groups to `runId`, prints "done", then kills itself without any cleanup.
// With a ready folder and a number of peers, it first waits until every peer has opened the
// store, and pauses a millisecond between commits, so concurrent children surely interleave.
const child = `
import { readdirSync, writeFileSync } from 'node:fs';
import { openSqliteStore } from ${JSON.stringify(storeModule)};
const [file, runId, prefix, count, readyDir, peers] = process.argv.slice(2);
const store = await openSqliteStore(file);
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
if (readyDir) {
  writeFileSync(readyDir + '/' + prefix, '');
  while (readdirSync(readyDir).length < Number(peers)) await pause(5);
}
for (let i = 0; i < Number(count); i++) {
  if (readyDir) await pause(1);
  const stepId = prefix + i;
  await store.commit([{ runId, journal: [{ stepId, kind: 'tool', inputHash: 'h', status: 'completed', output: i, error: null }],
    events: [{ type: 'step.started', stepId, stepType: 'tool' }, { type: 'step.completed', stepId, output: i }] }]);
}
process.stdout.write('done');
process.kill(process.pid, 'SIGKILL');
`;

function runChild(script: string, args: string[]): Promise<{ out: string; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk) => {
      out += String(chunk);
    });
    proc.on('error', reject);
    proc.on('exit', (_code, signal) => resolve({ out, signal }));
  });
}

describe('sqlite store across processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-sqlite-'));
  const script = join(dir, 'child.mts');
  writeFileSync(script, child);
  const file = join(dir, 'weft.db');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const newRun = async (id: string) => {
    const store = await openSqliteStore(file);
    await store.createRun({ id, flowId: 'f', flowVersion: 1, flow: {}, input: {}, backend: 'inprocess' });
    await store.close();
  };

  it('keeps every commit that returned before a SIGKILL', async () => {
    await newRun('killed');
    const { out, signal } = await runChild(script, [file, 'killed', 's', '50']);
    expect([out, signal]).toEqual(['done', 'SIGKILL']);
    const store = await openSqliteStore(file);
    expect(await store.loadJournal('killed')).toHaveLength(50);
    const seqs = (await store.readEvents('killed')).map((e) => e.seq);
    expect(seqs).toHaveLength(100);
    expect(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!)).toBe(true);
    await store.close();
  });

  it('numbers one run uniquely and in order while three processes commit to it', async () => {
    await newRun('shared');
    const ready = join(dir, 'ready');
    mkdirSync(ready);
    const results = await Promise.all(
      ['a', 'b', 'c'].map((p) => runChild(script, [file, 'shared', p, '300', ready, '3'])),
    );
    expect(results.map((r) => r.out)).toEqual(['done', 'done', 'done']);
    const store = await openSqliteStore(file);
    const events = await store.readEvents('shared');
    const seqs = events.map((e) => e.seq);
    expect(seqs).toHaveLength(1800);
    expect(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!)).toBe(true);
    expect(await store.loadJournal('shared')).toHaveLength(900);
    // The processes did interleave (one after another would switch writers only twice).
    const writers = events.map((e) => (e as { stepId: string }).stepId[0]);
    expect(writers.filter((w, i) => i > 0 && w !== writers[i - 1]).length).toBeGreaterThan(2);
    await store.close();
  });
});

// The layout behind the store's SQLite commit (migrations/0001_initial.ts): one row per run and
// commit, at run number × 2^24 + first seq. Read back through a second, raw connection.
describe('sqlite run log layout', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-sqlite-log-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = (id: string) => ({ id, flowId: 'f', flowVersion: 1, flow: {}, input: {}, backend: 'inprocess' });
  const step = (stepId: string): CommitBatch['events'] => [
    { type: 'step.started', stepId, stepType: 'tool' },
    { type: 'step.completed', stepId, output: stepId },
  ];
  const entry = (stepId: string) =>
    ({ stepId, kind: 'tool', inputHash: 'h', status: 'completed', output: stepId, error: null }) as const;
  const SPAN = 2 ** 24;

  it('writes one row per run and commit, in the run’s own position range', async () => {
    const file = join(dir, 'rows.db');
    const store = await openSqliteStore(file);
    await store.createRun(run('a'));
    await store.createRun(run('b'));
    await store.commit([{ runId: 'a', journal: [entry('x')], events: step('x') }]);
    // Two batches of one run in one commit still make one row; a journal-only batch too.
    await store.commit([
      { runId: 'b', journal: [], events: [{ type: 'step.delta', stepId: 'y', text: '.' }] },
      { runId: 'a', journal: [entry('y')], events: step('y') },
      { runId: 'a', journal: [], events: [{ type: 'step.delta', stepId: 'z', text: '.' }] },
      { runId: 'b', journal: [entry('j')], events: [] },
    ]);
    await store.commit([{ runId: 'b', journal: [entry('k')], events: [] }]);
    const raw = new DatabaseSync(file);
    const [a, b] = ['a', 'b'].map((id) => raw.prepare('SELECT num FROM runs WHERE id = ?').get(id)?.num as number);
    const rows = raw.prepare('SELECT pos, run_id FROM run_log ORDER BY pos').all();
    raw.close();
    expect(rows).toEqual([
      { pos: a! * SPAN + 1, run_id: 'a' }, // seqs 1, 2
      { pos: a! * SPAN + 3, run_id: 'a' }, // seqs 3, 4, 5
      { pos: b! * SPAN + 1, run_id: 'b' }, // the delta and the journal entry: seq 1
      { pos: b! * SPAN + 2, run_id: 'b' }, // journal only: takes seq 2, which no event has
    ]);
    expect((await store.readEvents('a')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect((await store.readEvents('a', 3)).map((e) => e.seq)).toEqual([4, 5]);
    // Never into the neighbouring run's range, whatever the bound.
    expect((await store.readEvents('b', -5)).map((e) => e.seq)).toEqual([1]);
    expect(await store.readEvents('a', SPAN + 5)).toEqual([]);
    expect((await store.loadJournal('b')).map((e) => e.stepId)).toEqual(['j', 'k']);
    await store.close();
  });

  it('splits a large commit over rows of about 256 kB, read back whole, from any seq and by pages', async () => {
    const file = join(dir, 'large.db');
    let store = await openSqliteStore(file);
    await store.createRun(run('big'));
    // A map whose 20 items finish together: 40 events, 20 of them 90 kB.
    const big = (stepId: string): CommitBatch['events'] => [
      { type: 'step.started', stepId, stepType: 'code' },
      { type: 'step.completed', stepId, output: 'x'.repeat(90_000) },
    ];
    const events = Array.from({ length: 20 }, (_, i) => big(`each[${i}]/part`)).flat();
    const stored = await store.commit([{ runId: 'big', journal: [entry('j')], events }]);
    expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const raw = new DatabaseSync(file);
    const rows = raw.prepare("SELECT length(events) AS bytes, journal FROM run_log WHERE run_id = 'big'").all();
    raw.close();
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) expect(row.bytes as number).toBeLessThanOrEqual(3 * 90_200);
    expect(rows.filter((row) => row.journal !== null)).toHaveLength(1);
    expect(await store.readEvents('big')).toEqual(stored);
    expect((await store.readEvents('big', 17, 5)).map((e) => e.seq)).toEqual([18, 19, 20, 21, 22]);
    // By bytes: stops after about the budget, never empty while events remain, and pages on.
    const paged = [];
    for (let after = 0; ; ) {
      const page = await store.readEvents('big', after, Number.POSITIVE_INFINITY, 200_000);
      if (page.length === 0) break;
      expect(page.length).toBeLessThan(40);
      paged.push(...page);
      after = page.at(-1)!.seq;
    }
    expect(paged).toEqual(stored);
    // Reopened, the store knows every row's keys: the same commit again stores nothing.
    await store.close();
    store = await openSqliteStore(file);
    expect(await store.commit([{ runId: 'big', journal: [entry('j')], events }])).toEqual([]);
    expect((await store.commit([{ runId: 'big', journal: [], events: step('after') }])).map((e) => e.seq)).toEqual([
      41, 42,
    ]);
    await store.close();
  });

  it('appends to the new run when a run was deleted and created again under the same id', async () => {
    const file = join(dir, 'replaced.db');
    const store = await openSqliteStore(file);
    await store.createRun(run('r'));
    await store.commit([{ runId: 'r', journal: [entry('x')], events: step('x') }]);
    // Another process deletes the run (the cascade takes its log) and creates it anew.
    const raw = new DatabaseSync(file);
    raw.exec("DELETE FROM runs WHERE id = 'r'");
    raw.close();
    await store.createRun(run('r'));
    // This store still knows the old run's keys and numbers: none of them may apply.
    const stored = await store.commit([{ runId: 'r', journal: [entry('x')], events: step('x') }]);
    expect(stored.map((e) => e.seq)).toEqual([1, 2]);
    expect(await store.readEvents('r')).toEqual(stored);
    expect(await store.loadJournal('r')).toEqual([entry('x')]);
    await store.close();
  });

  it('fails clearly past 2^24 seqs in a run or 2^29 runs, and stays usable', async () => {
    const file = join(dir, 'limits.db');
    const store = await openSqliteStore(file);
    await store.createRun(run('full'));
    const raw = new DatabaseSync(file);
    const base = (raw.prepare("SELECT num FROM runs WHERE id = 'full'").get()?.num as number) * SPAN;
    // A row holding seq 2^24 - 3, as if the run had logged that much.
    raw
      .prepare("INSERT INTO run_log (pos, run_id, events, journal, at) VALUES (?, 'full', ?, NULL, 0)")
      .run(base + SPAN - 3, JSON.stringify([{ type: 'step.delta', stepId: 'd', text: '.' }]));
    raw
      .prepare(
        "INSERT INTO runs (num, id, flow_id, flow_version, flow, input, status, backend, created_at, updated_at) VALUES (?, 'late', 'f', 1, '{}', '{}', 'running', 'inprocess', 0, 0)",
      )
      .run(2 ** 29);
    raw.close();
    await expect(store.commit([{ runId: 'full', journal: [], events: [...step('a'), ...step('b')] }])).rejects.toThrow(
      /would exceed 16777215 log seqs/,
    );
    // The last two seqs are still there to take.
    expect((await store.commit([{ runId: 'full', journal: [], events: step('a') }])).map((e) => e.seq)).toEqual([
      SPAN - 2,
      SPAN - 1,
    ]);
    await expect(store.commit([{ runId: 'late', journal: [entry('x')], events: [] }])).rejects.toThrow(/below 2\^29/);
    await expect(store.commit([{ runId: 'missing', journal: [entry('x')], events: [] }])).rejects.toThrow(
      /no run missing/,
    );
    await store.close();
  });
});
