/**
 * Rows 2–5 (durable): the in-process runner with its journal in a real store, each next to the
 * raw floor on the same kind of database. A run here is `runner.start()` end to end: validate
 * the flow, insert the run, claim it, replay (nothing to replay), execute, group-commit every
 * result before it is used, finish. The fixed part of that is reported in a note.
 */
import { join } from 'node:path';
import { openStore, type RunStore } from '../../packages/adapters/src/store/index.ts';
import type { Json } from '../../packages/engine/src/index.ts';
import type { BenchContext } from '../lib/context.ts';
import { agentFixtures, agentFlow, fanOutFlow, sequentialFlow } from '../lib/flows.ts';
import { median, sample, samplePaired } from '../lib/measure.ts';
import { RawPostgres } from '../lib/postgres.ts';
import { RawSqlite } from '../lib/raw-sqlite.ts';
import { benchRunner, expectStatus } from '../lib/runner.ts';
import type { Row } from '../lib/table.ts';
import { checkAgentOutput } from './memory.ts';

export const DURABLE_RATIO_TARGET = 1.5;

interface SequentialResult {
  usPerStep: number;
  createMs: number;
  commitsPerStep: number;
}

interface SequentialResult {
  usPerStep: number;
  rawUsPerStep: number;
  /** Weft / raw, paired round by round. */
  ratio: number;
  createMs: number;
  commitsPerStep: number;
}

/**
 * `steps` sequential no-op steps through the runner on `store`, alternating round by round with
 * the raw baseline on the same kind of database (`rawSteps`): µs per step, medians over rounds.
 */
async function sequentialOnStore(
  ctx: BenchContext,
  store: RunStore,
  rawSteps: (steps: number) => Promise<number>,
): Promise<SequentialResult> {
  const { steps } = ctx.sizes;
  const runner = benchRunner(store);
  const doc = sequentialFlow(steps);
  const createMs: number[] = [];
  const commits: number[] = [];
  try {
    const paired = await samplePaired(
      ctx.plan,
      async () => {
        const before = runner.committer.commits;
        const start = performance.now();
        const runId = await runner.create(doc, {});
        const created = performance.now();
        expectStatus(await runner.execute(runId), 'completed');
        const end = performance.now();
        createMs.push(created - start);
        commits.push(runner.committer.commits - before);
        return ((end - start) * 1000) / steps;
      },
      () => rawSteps(steps),
    );
    return {
      usPerStep: paired.a,
      rawUsPerStep: paired.b,
      ratio: paired.ratio,
      createMs: median(createMs),
      commitsPerStep: median(commits) / steps,
    };
  } finally {
    await runner.close();
  }
}

function sequentialNote(ctx: BenchContext, row: string, result: SequentialResult): void {
  const { steps } = ctx.sizes;
  ctx.notes.push(
    `row ${row}: ${result.commitsPerStep.toFixed(2)} group commits per step (each: 1 journal row + step events); ` +
      `of the run, create (validate the ${steps}-step flow + insert the run) took ${result.createMs.toFixed(1)} ms ` +
      `= ${((result.createMs * 1000) / steps).toFixed(1)} µs/step. Weft and raw alternate round by round; the ratio is the median of the rounds' ratios.`,
  );
}

function sequentialRow(id: string, what: string, result: SequentialResult): Row {
  return {
    id,
    what,
    unit: 'µs/step',
    weft: result.usPerStep,
    raw: result.rawUsPerStep,
    ratio: result.ratio,
    target: { kind: 'ratio', max: DURABLE_RATIO_TARGET },
  };
}

export async function sequentialOnSqlite(ctx: BenchContext): Promise<Row> {
  const store = await openStore({ url: join(ctx.dir, 'sequential.db') });
  const raw = new RawSqlite(join(ctx.dir, 'raw-sequential.db'));
  let result: SequentialResult;
  try {
    result = await sequentialOnStore(ctx, store, (steps) => raw.sequential(steps));
  } finally {
    raw.close();
    await store.close();
  }
  sequentialNote(ctx, '2', result);
  return sequentialRow('2', `${ctx.sizes.steps} sequential steps, journal on SQLite`, result);
}

export async function sequentialOnPostgres(ctx: BenchContext, url: string): Promise<Row> {
  const store = await openStore({ url });
  const raw = await RawPostgres.open(url);
  let result: SequentialResult;
  try {
    result = await sequentialOnStore(ctx, store, (steps) => raw.sequential(steps));
  } finally {
    await raw.close();
    await store.close();
  }
  sequentialNote(ctx, '3', result);
  return sequentialRow('3', `${ctx.sizes.steps} sequential steps, journal on PostgreSQL`, result);
}

export function postgresSkipped(ctx: BenchContext, reason: string): Row {
  return {
    id: '3',
    what: `${ctx.sizes.steps} sequential steps, journal on PostgreSQL`,
    unit: 'µs/step',
    weft: Number.NaN,
    target: { kind: 'ratio', max: DURABLE_RATIO_TARGET },
    skipped: reason,
  };
}

/**
 * Counts, per store.commit, how many journal entries it carried. Only for the one untimed run
 * that shows where the fan-out's results went; the timed runs use the store as it is.
 */
function journalPerCommit(store: RunStore, log: number[]): RunStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'commit') {
        return (batches: Parameters<RunStore['commit']>[0]) => {
          log.push(batches.reduce((sum, batch) => sum + batch.journal.length, 0));
          return target.commit(batches);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export async function fanOutOnSqlite(ctx: BenchContext): Promise<Row[]> {
  const width = ctx.sizes.fanOut;
  const doc = fanOutFlow(width);
  const store = await openStore({ url: join(ctx.dir, 'fan-out.db') });
  const commits: number[] = [];
  let ms: number;
  const perCommit: number[] = [];
  try {
    const runner = benchRunner(store);
    ms = await sample(ctx.plan, async () => {
      const before = runner.committer.commits;
      const start = performance.now();
      expectStatus(await runner.start(doc, {}), 'completed');
      const elapsed = performance.now() - start;
      commits.push(runner.committer.commits - before);
      return elapsed;
    });
    await runner.close();
    const counted = benchRunner(journalPerCommit(store, perCommit));
    expectStatus(await counted.start(doc, {}), 'completed');
    await counted.close();
  } finally {
    await store.close();
  }
  const raw = new RawSqlite(join(ctx.dir, 'raw-fan-out.db'));
  let rawMs: number;
  try {
    rawMs = await sample(ctx.plan, () => raw.fanOut(width));
  } finally {
    raw.close();
  }
  const withResults = perCommit.filter((entries) => entries > 0);
  ctx.notes.push(
    `row 4: journal entries per store.commit over one run: [${perCommit.join(', ')}]; ` +
      `raw baseline = ${width} awaited no-ops at once + ONE transaction of ${width} INSERTs (the best a group commit can do).`,
  );
  return [
    {
      id: '4a',
      what: `${width}-wide parallel fan-out, SQLite: whole run`,
      unit: 'ms',
      weft: ms,
      raw: rawMs,
    },
    {
      id: '4b',
      what: `  group commits for the whole run (committer.commits Δ)`,
      unit: '',
      weft: median(commits),
    },
    {
      id: '4c',
      what: `  commits that carried the ${width} results`,
      unit: '',
      weft: withResults.length,
      target: { kind: 'equals', value: 1 },
      targetNote: `(not ${width})`,
    },
  ];
}

export async function agentOnSqlite(ctx: BenchContext): Promise<Row> {
  const { turns } = ctx.sizes;
  const doc = agentFlow(turns);
  const fixtures = agentFixtures(turns);
  const store = await openStore({ url: join(ctx.dir, 'agent.db') });
  let weft: number;
  let oneTurnUs: number;
  try {
    const runner = benchRunner(store);
    weft = await sample(ctx.plan, async () => {
      const start = performance.now();
      const outcome = await runner.start(doc, {}, { fixtures });
      const elapsed = performance.now() - start;
      expectStatus(outcome, 'completed');
      checkAgentOutput(outcome.output as Json, turns);
      return (elapsed * 1000) / turns;
    });
    // The same run with one turn: what every run pays once, whatever its length.
    const single = agentFlow(1);
    const singleFixtures = agentFixtures(1);
    oneTurnUs = await sample(ctx.plan, async () => {
      const start = performance.now();
      expectStatus(await runner.start(single, {}, { fixtures: singleFixtures }), 'completed');
      return (performance.now() - start) * 1000;
    });
    await runner.close();
  } finally {
    await store.close();
  }
  ctx.notes.push(
    `row 5b: a 1-turn agent run takes ${oneTurnUs.toFixed(0)} µs end to end (fixed per-run cost: validate, insert, claim, ` +
      `load journal, finish, release); each further turn adds ${((weft * turns - oneTurnUs) / (turns - 1)).toFixed(0)} µs ` +
      `(2 checkpointed calls, 2 group commits).`,
  );
  // By hand: per turn, the model call and the tool call, each awaited and committed.
  const raw = new RawSqlite(join(ctx.dir, 'raw-agent.db'));
  let rawUs: number;
  try {
    rawUs = await sample(ctx.plan, async () => {
      const start = performance.now();
      for (let turn = 0; turn < turns; turn++) {
        await raw.step(2 * turn);
        await raw.step(2 * turn + 1);
      }
      return ((performance.now() - start) * 1000) / turns;
    });
  } finally {
    raw.close();
  }
  return {
    id: '5b',
    what: `${turns}-turn agent loop (mock model), SQLite`,
    unit: 'µs/turn',
    weft,
    raw: rawUs,
    target: { kind: 'ratio', max: DURABLE_RATIO_TARGET },
    targetNote: '(as row 2)',
  };
}
