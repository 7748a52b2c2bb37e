/**
 * Row 6: what a run waiting for a human costs. The in-process runner does not keep a parked run
 * in memory (it parks, and a decision resumes it by replay from the journal), so the heap per
 * parked run should be close to nothing. Measured honestly: full GCs, heap in use before and
 * after parking N runs, divided by N; the benchmark itself holds no reference to the runs (it
 * finds them again through the store's pending approvals).
 */
import { join } from 'node:path';
import { inProcessBackend } from '../../packages/adapters/src/inprocess/backend.ts';
import { RunService } from '../../packages/adapters/src/service/run-service.ts';
import { openStore } from '../../packages/adapters/src/store/index.ts';
import type { BenchContext } from '../lib/context.ts';
import { APPROVAL_STEP, parkingFlow } from '../lib/flows.ts';
import { median, settledHeap } from '../lib/measure.ts';
import { benchRunner, expectStatus } from '../lib/runner.ts';
import type { Row } from '../lib/table.ts';

export const HEAP_TARGET_BYTES = 8 * 1024;

interface Round {
  heapPerRunB: number;
  rssPerRunB: number;
  parkMs: number;
  resumeMs: number;
}

/** Runs of the parking flow started (and approved) on a fresh store before a round measures. */
const SETTLE_RUNS = 20;

/**
 * One round on a fresh store and runner, so the heap before parking is an idle process's: the
 * store keeps bounded per-run caches (e.g. the SQLite store's event-key cache), and measuring
 * after an earlier round would count that round's entries being replaced (it came out negative).
 */
async function round(ctx: BenchContext, index: number): Promise<Round> {
  const count = ctx.sizes.parked;
  const doc = parkingFlow();
  const store = await openStore({ url: join(ctx.dir, `parked-${index}.db`) });
  const runner = benchRunner(store);
  // Decisions take the product's path: the run service records them and the backend resumes.
  const backend = inProcessBackend(runner);
  const service = new RunService({ store, backends: [backend] });
  const parkAll = async (runs: number) => {
    for (let i = 0; i < runs; i++) expectStatus(await runner.start(doc, { i }), 'waiting');
  };
  const resumeAll = async (runs: number) => {
    const pending = await store.listApprovals({ status: 'pending' });
    if (pending.length !== runs) throw new Error(`expected ${runs} parked runs, found ${pending.length}`);
    for (const { runId } of pending) {
      await service.decide(runId, APPROVAL_STEP, { approved: true, by: 'bench' });
      await backend.settled();
      const run = await store.getRun(runId);
      if (run?.status !== 'completed') throw new Error(`run ${runId} ended ${run?.status ?? 'missing'}, not completed`);
    }
  };
  try {
    await parkAll(SETTLE_RUNS);
    await resumeAll(SETTLE_RUNS);
    const heapBefore = await settledHeap();
    const rssBefore = process.memoryUsage().rss;
    let start = performance.now();
    await parkAll(count);
    const parkMs = performance.now() - start;
    const heapAfter = await settledHeap();
    const rssAfter = process.memoryUsage().rss;
    start = performance.now();
    await resumeAll(count);
    const resumeMs = performance.now() - start;
    return {
      heapPerRunB: (heapAfter - heapBefore) / count,
      rssPerRunB: (rssAfter - rssBefore) / count,
      parkMs,
      resumeMs,
    };
  } finally {
    await runner.close();
    await store.close();
  }
}

export async function parkedRuns(ctx: BenchContext): Promise<Row[]> {
  const count = ctx.sizes.parked;
  // Each round parks and resumes `count` runs (seconds): fewer rounds than the other rows.
  const warmup = Math.min(ctx.plan.warmup, 1);
  const timed = Math.min(ctx.plan.rounds, 3);
  const rounds: Round[] = [];
  for (let index = 0; index < warmup + timed; index++) {
    const result = await round(ctx, index);
    if (index >= warmup) rounds.push(result);
  }

  const heapBytes = median(rounds.map((r) => r.heapPerRunB));
  const parkMs = median(rounds.map((r) => r.parkMs));
  const resumeMs = median(rounds.map((r) => r.resumeMs));
  ctx.notes.push(
    `row 6: heap per parked run in each round (B): [${rounds.map((r) => r.heapPerRunB.toFixed(0)).join(', ')}]; ` +
      `RSS Δ per run ${(median(rounds.map((r) => r.rssPerRunB)) / 1024).toFixed(2)} KB (includes SQLite's page cache, ` +
      `outside the JS heap); parking all ${count} took ${parkMs.toFixed(0)} ms (${((parkMs * 1000) / count).toFixed(0)} µs/run), ` +
      `resuming them ${((resumeMs * 1000) / count).toFixed(0)} µs/run.`,
  );
  return [
    {
      id: '6a',
      what: `heap per run, ${count} runs parked at an approval`,
      unit: 'B/run',
      weft: heapBytes,
      target: { kind: 'below', max: HEAP_TARGET_BYTES },
      targetNote: '(8 KB; Mastra ~18 KB, LangGraph ~34 KB)',
    },
    {
      id: '6b',
      what: `  resume all ${count} by approving (replay)`,
      unit: 'ms',
      weft: resumeMs,
    },
  ];
}
