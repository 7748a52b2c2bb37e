/**
 * SQLite behaviours that need real processes: a commit survives SIGKILL right after it returns
 * (the crash model WAL + synchronous=NORMAL is chosen for), and processes committing to the same
 * file at once keep each run's seq unique and increasing (BEGIN IMMEDIATE + max(seq), no cache).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from './index.ts';

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
