/**
 * THE crash test: a worker process runs a 16-step flow and is SIGKILLed at 20 different points;
 * each time the run is resumed here and must end exactly as an uninterrupted run does, without
 * executing again any step that was journaled before the kill, and with each keyed event stored
 * once. The same 20 crashes run against SQLite and PostgreSQL.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Json } from '@weft/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childRunId } from '../src/backends/children.ts';
import { bothBackends, duplicateKeys } from '../src/inprocess/test-support.ts';
import type { RunStore } from '../src/store/types.ts';
import { CRASH_MARKS, createWorkerRunner, journaledIds } from './fixtures/flows.ts';
import { runWorker, type WorkerConfig } from './worker-process.ts';

const CRASHES = 20;
/** Crashes in flight at once (each in its own worker process, on its own run). */
const CONCURRENCY = 3;
/** A pause after each side effect: widens the window between a side effect and its journal entry. */
const PAUSE_MS = 8;
const INPUT = { n: 4 };

const readLines = (file: string): string[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];

async function pool<T>(count: number, width: number, work: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await work(index);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

interface Crash {
  killAt: number;
  journaledBefore: string[];
  loggedBefore: string[];
}

describe.each(bothBackends())('%s: SIGKILL at 20 points, then resume', (_, backend) => {
  let store: RunStore;
  let dir: string;
  beforeAll(async () => {
    await backend.setup();
    store = await backend.open();
    dir = mkdtempSync(join(tmpdir(), 'weft-crash-'));
  });
  afterAll(async () => {
    await backend.teardown();
    rmSync(dir, { recursive: true, force: true });
  });

  const config = (name: string): WorkerConfig => ({
    storeUrl: backend.url,
    runId: `${name}-${backend.name}`,
    log: join(dir, `${name}.log`),
    pauseMs: PAUSE_MS,
    input: INPUT,
    handshake: true,
  });

  const journalOf = async (runId: string) => {
    const [parent, child] = await Promise.all([store.loadJournal(runId), store.loadJournal(childRunId(runId, 'sub'))]);
    return {
      ids: journaledIds(parent, child),
      entries: [...parent, ...child.map((e) => ({ ...e, stepId: `child:${e.stepId}` }))],
    };
  };

  it('resumes every crash to the uninterrupted output, re-executing nothing journaled', {
    timeout: 90_000,
  }, async () => {
    // The reference: the same flow in the same kind of process, never interrupted.
    const reference = await runWorker('crash', config('reference'));
    expect(reference.signal, reference.stderr).toBeNull();
    const done = reference.lines.find((line) => line.startsWith('done '));
    const expected = JSON.parse(done?.slice(5) ?? '{}') as { status: string; output: Json };
    expect(expected.status).toBe('completed');
    expect(readLines(config('reference').log).sort()).toEqual([...CRASH_MARKS].sort());
    // Kill points spread over the run's progress lines, from its first event to its last side
    // effect (the kill lands in the pause that follows it, before that step is journaled).
    const last = reference.lines.indexOf('fx m2') + 1;
    expect(last).toBeGreaterThan(CRASHES);
    const killPoints = Array.from({ length: CRASHES }, (_, i) => 1 + Math.round((i * (last - 1)) / (CRASHES - 1)));

    const crashes = await pool(CRASHES, CONCURRENCY, async (index): Promise<Crash> => {
      const killAt = killPoints[index] ?? 1;
      const cfg = config(`crash${index}`);
      const killed = await runWorker('crash', cfg, killAt);
      expect(killed.signal, `crash ${index} ended by itself: ${killed.stderr}`).toBe('SIGKILL');

      // Right after the kill: what is durable, and what side effects happened.
      const before = await journalOf(cfg.runId);
      const loggedBefore = readLines(cfg.log);
      expect((await store.getRun(cfg.runId))?.status).toBe('running');

      // Resume in this process: the dead worker's claim is taken over at once (its pid is gone).
      const runner = createWorkerRunner(store, cfg.log, 0);
      const outcome = await runner.resume(cfg.runId);
      await runner.close();
      expect(outcome.status, JSON.stringify(outcome.error)).toBe('completed');
      expect(outcome.output).toEqual(expected.output);

      const loggedAfter = readLines(cfg.log).slice(loggedBefore.length);
      const reExecuted = loggedAfter.filter((line) => before.ids.includes(line));
      expect(reExecuted, `crash ${index}: journaled steps executed again`).toEqual([]);
      // Every side effect happened; only those not yet journaled may have happened twice.
      const all = [...loggedBefore, ...loggedAfter];
      expect(new Set(all)).toEqual(new Set(CRASH_MARKS));
      for (const mark of CRASH_MARKS) expect(all.filter((line) => line === mark).length).toBeLessThanOrEqual(2);

      // What was journaled before the kill is still there, unchanged.
      const after = await journalOf(cfg.runId);
      for (const entry of before.entries) expect(after.entries).toContainEqual(entry);

      for (const runId of [cfg.runId, childRunId(cfg.runId, 'sub')]) {
        const events = await store.readEvents(runId);
        expect(duplicateKeys(events), `crash ${index}: ${runId}`).toEqual([]);
        expect(events.filter((event) => event.type === 'run.completed')).toHaveLength(1);
      }
      const parentEvents = await store.readEvents(cfg.runId);
      expect(parentEvents.filter((event) => event.type === 'child.started')).toMatchObject([
        { stepId: 'sub', childRunId: childRunId(cfg.runId, 'sub') },
      ]);
      return { killAt, journaledBefore: before.ids, loggedBefore };
    });

    // The kills really landed at different points: many distinct durable states, from an empty
    // journal to a nearly finished run, and some between a side effect and its journal entry.
    const states = new Set(crashes.map((crash) => crash.journaledBefore.length));
    const sizes = [...states].sort((a, b) => a - b);
    expect(states.size, `journal sizes at the kills: ${sizes.join(', ')}`).toBeGreaterThanOrEqual(8);
    expect(sizes[0]).toBeLessThanOrEqual(1);
    expect(sizes.at(-1)).toBeGreaterThanOrEqual(12);
    const midStep = crashes.filter((crash) => crash.loggedBefore.some((line) => !crash.journaledBefore.includes(line)));
    expect(midStep.length).toBeGreaterThanOrEqual(1);
  });
});
