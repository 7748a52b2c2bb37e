/**
 * Rows 1b, 5c–5d and 8: the durable in-process runner as an application uses it, each next to
 * what it must not cost much more than (issue 17):
 *
 * - 1b: `runner.start()` of the sequential flow on an in-memory store, beside the engine alone
 *   (row 1's interpreter over a MemoryHost): the runner's own per-step overhead.
 * - 5c–5e: the agent loop beside the `ai` SDK's own `generateText` loop with a LanguageModel
 *   answering the same recorded turns: Weft with the turns as fixtures on an in-memory store
 *   (5c) and a file (5d), and with that LanguageModel registered, each turn a streamText call (5e).
 * - 8: memory of runs in flight: 1,000 runs of 10 steps started at once and held mid-run, RSS
 *   and heap growth per run (after a GC), beside the figure Mastra showed in the same kind of
 *   measurement (issue 17: 45 MB for 1,000 runs).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { createExecutorRegistry, type HostTool } from '../../packages/adapters/src/executors/index.ts';
import { InProcessRunner } from '../../packages/adapters/src/inprocess/index.ts';
import { openStore, type RunStore } from '../../packages/adapters/src/store/index.ts';
import { interpret, type Json } from '../../packages/engine/src/index.ts';
import { MemoryHost } from '../../packages/engine/src/test-support/memory-host.ts';
import type { BenchContext } from '../lib/context.ts';
import { agentFixtures, agentFlow, hostToolSpecs, hostTools, NOOP_TOOL, sequentialFlow } from '../lib/flows.ts';
import { sample, settledMemory, timeMs } from '../lib/measure.ts';
import { recordedModel } from '../lib/recorded-model.ts';
import { benchRunner, expectStatus } from '../lib/runner.ts';
import type { Row } from '../lib/table.ts';
import { validated } from './memory.ts';

/** Issue 17: the runner's per-step overhead over the engine alone, on an in-memory store. */
export const RUNNER_OVERHEAD_TARGET_US = 10;
/** Issue 17: an agent loop within 1.2× the `ai` SDK's generateText loop with the same model. */
export const AGENT_RATIO_TARGET = 1.2;
/** Mastra's RSS growth per in-flight run in issue 17's measurement (45 MB / 1,000 runs). */
const MASTRA_RSS_PER_RUN_KB = 45;

const RECORDED_MODEL = 'bench:recorded';

export async function sequentialThroughRunner(ctx: BenchContext): Promise<Row> {
  const { steps } = ctx.sizes;
  const doc = sequentialFlow(steps);
  const store = await openStore({ url: ':memory:' });
  const runner = benchRunner(store);
  let weft: number;
  try {
    weft = await sample(ctx.plan, async () => {
      const ms = await timeMs(async () => expectStatus(await runner.start(doc, {}), 'completed'));
      return (ms * 1000) / steps;
    });
  } finally {
    await runner.close();
    await store.close();
  }
  const flow = validated(doc);
  const engine = await sample(ctx.plan, async () => {
    const host = new MemoryHost({ execute: () => null });
    const ms = await timeMs(() => interpret(flow, {}, host, { hostTools: hostToolSpecs }));
    return (ms * 1000) / steps;
  });
  return {
    id: '1b',
    what: `${steps} steps, durable runner, in-memory store (baseline: row 1's engine)`,
    unit: 'µs/step',
    weft,
    raw: engine,
    target: { kind: 'overhead', max: RUNNER_OVERHEAD_TARGET_US },
  };
}

function recordedAgentFlow(turns: number): Json {
  const doc = agentFlow(turns) as { steps: Record<string, Json>[] };
  return { ...doc, steps: doc.steps.map((step) => ({ ...step, model: RECORDED_MODEL })) } as Json;
}

/** The SDK's own loop: one generateText call that runs the tool between turns until the answer. */
async function generateTextLoop(turns: number): Promise<number> {
  const noop = tool({
    description: 'does nothing',
    inputSchema: jsonSchema({ type: 'object' }),
    execute: async () => null,
  });
  const result = await generateText({
    model: recordedModel(turns),
    prompt: 'go',
    tools: { [NOOP_TOOL]: noop },
    stopWhen: stepCountIs(turns),
  });
  if (result.steps.length !== turns || result.text !== 'done') {
    throw new Error(
      `generateText loop: ${result.steps.length} turns ending "${result.text}", expected ${turns} and "done"`,
    );
  }
  return result.steps.length;
}

/**
 * Weft's agent runs on `store`, µs per turn. `viaSdk`: the model is the registered LanguageModel
 * (each turn through the SDK's streamText); otherwise the recorded turns are the run's fixtures
 * (as `weft run --fixtures`, and the measurement issue 17 made).
 */
async function agentOnStore(ctx: BenchContext, store: RunStore, viaSdk: boolean): Promise<number> {
  const { turns } = ctx.sizes;
  const doc = viaSdk ? recordedAgentFlow(turns) : agentFlow(turns);
  const executors = createExecutorRegistry({
    tools: hostTools,
    ...(viaSdk ? { models: { [RECORDED_MODEL]: recordedModel(turns) } } : {}),
  });
  const runner = new InProcessRunner({ store, executors, tools: hostTools });
  const options = viaSdk ? {} : { fixtures: agentFixtures(turns) };
  try {
    return await sample(ctx.plan, async () => {
      let output: Json = null;
      const ms = await timeMs(async () => {
        const outcome = await runner.start(doc, {}, options);
        expectStatus(outcome, 'completed');
        output = outcome.output;
      });
      const text = (output as { text?: unknown } | null)?.text;
      if (text !== 'done') throw new Error(`agent run answered ${JSON.stringify(text)}, expected "done"`);
      return (ms * 1000) / turns;
    });
  } finally {
    await runner.close();
  }
}

async function onStore<T>(url: string, use: (store: RunStore) => Promise<T>): Promise<T> {
  const store = await openStore({ url });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

export async function agentBesideGenerateText(ctx: BenchContext): Promise<Row[]> {
  const { turns } = ctx.sizes;
  const sdk = await sample(ctx.plan, async () => ((await timeMs(() => generateTextLoop(turns))) * 1000) / turns);
  const inMemory = await onStore(':memory:', (store) => agentOnStore(ctx, store, false));
  const onFile = await onStore(join(ctx.dir, 'agent-sdk.db'), (store) => agentOnStore(ctx, store, false));
  const viaSdk = await onStore(':memory:', (store) => agentOnStore(ctx, store, true));
  ctx.notes.push(
    "rows 5c–5e: the baseline is the ai SDK's generateText loop (tool executed by the SDK, stopWhen: stepCountIs) on a LanguageModel answering the recorded turns (lib/recorded-model.ts). " +
      "Weft's run includes validate, create, claim and finish, and a durable commit per model turn and per tool call; the SDK's loop keeps nothing. " +
      "5c/5d answer the turns from the run's fixtures; 5e asks the same LanguageModel, each turn one streamText call (streamed, so the editor shows tokens live) — the SDK's streaming path alone costs several times its generateText per turn.",
  );
  const what = (how: string) => `${turns}-turn agent loop, ${how} (baseline: generateText loop)`;
  return [
    {
      id: '5c',
      what: what('in-memory store'),
      unit: 'µs/turn',
      weft: inMemory,
      raw: sdk,
      target: { kind: 'ratio', max: AGENT_RATIO_TARGET },
    },
    { id: '5d', what: what('SQLite file'), unit: 'µs/turn', weft: onFile, raw: sdk },
    { id: '5e', what: what('model via streamText'), unit: 'µs/turn', weft: viaSdk, raw: sdk },
  ];
}

const IN_FLIGHT_RUNS = 1_000;
const IN_FLIGHT_STEPS = 10;
const HOLD_AT = 5;

/** A tool that holds every run at step HOLD_AT until released: all runs are in flight at once. */
function holdingTools(): { tools: Record<string, HostTool>; held: () => number; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = 0;
  const hold: HostTool = {
    description: 'waits for the benchmark',
    parameters: { type: 'object' },
    execute: async () => {
      held++;
      await gate;
      return null;
    },
  };
  return { tools: { ...hostTools, hold }, held: () => held, release };
}

function holdingFlow(): Json {
  return {
    irVersion: 1,
    id: 'bench-in-flight',
    name: `${IN_FLIGHT_STEPS} steps, held at step ${HOLD_AT}`,
    steps: Array.from({ length: IN_FLIGHT_STEPS }, (_, i) => ({
      id: `s${i}`,
      type: 'tool',
      tool: i === HOLD_AT ? 'hold' : NOOP_TOOL,
    })),
  };
}

/**
 * Row 8 in a process of its own: RSS is the whole process's, and rows run before it leave pages
 * behind (or hand them back), which moved the figure by more than the runs themselves.
 */
export function runsInFlight(ctx: BenchContext): Row[] {
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(new URL('../lib/in-flight-child.ts', import.meta.url)), ctx.dir],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (child.status !== 0) throw new Error(`row 8: the measuring process exited ${child.status}`);
  return JSON.parse(child.stdout) as Row[];
}

interface Burst {
  rssKb: number;
  heapKb: number;
  reservedKb: number;
}

/** IN_FLIGHT_RUNS runs started at once and held mid-run: growth per run between settled GCs. */
async function burstOfRuns(store: RunStore): Promise<Burst> {
  const { tools, held, release } = holdingTools();
  const runner = new InProcessRunner({ store, executors: createExecutorRegistry({ tools }), tools });
  const doc = holdingFlow();
  try {
    const before = await settledMemory();
    const runs = Array.from({ length: IN_FLIGHT_RUNS }, () => runner.start(doc, {}));
    while (held() < IN_FLIGHT_RUNS) await new Promise((resolve) => setTimeout(resolve, 5));
    const during = await settledMemory();
    release();
    for (const outcome of await Promise.all(runs)) expectStatus(outcome, 'completed');
    const perRun = (bytes: number) => bytes / 1024 / IN_FLIGHT_RUNS;
    return {
      rssKb: perRun(during.rss - before.rss),
      heapKb: perRun(during.heapUsed - before.heapUsed),
      reservedKb: perRun(during.heapTotal - before.heapTotal),
    };
  } finally {
    await runner.close();
  }
}

/**
 * Row 8, measured in this process (bench/lib/in-flight-child.ts). The first burst in a fresh
 * process also pays for V8 sizing its young generation (it doubles at the first large burst
 * after start-up, ~32 MB once, whatever holds the memory); a second burst of the same size shows
 * what runs in flight cost a process that has been busy before, as a server has.
 */
export async function runsInFlightHere(dir: string): Promise<Row[]> {
  const store = await openStore({ url: join(dir, 'in-flight.db') });
  try {
    // One run first: the store, the runner and the code paths are warm before the baseline.
    const warm = holdingTools();
    const warmRunner = new InProcessRunner({
      store,
      executors: createExecutorRegistry({ tools: warm.tools }),
      tools: warm.tools,
    });
    const warmRun = warmRunner.start(holdingFlow(), {});
    while (warm.held() < 1) await new Promise((resolve) => setImmediate(resolve));
    warm.release();
    expectStatus(await warmRun, 'completed');
    await warmRunner.close();

    const first = await burstOfRuns(store);
    const second = await burstOfRuns(store);
    const what = `${IN_FLIGHT_RUNS} ${IN_FLIGHT_STEPS}-step runs in flight, SQLite`;
    return [
      {
        id: '8a',
        what: `RSS per run, ${what}, in a fresh process`,
        unit: 'KB/run',
        weft: first.rssKb,
        target: { kind: 'below', max: MASTRA_RSS_PER_RUN_KB },
        targetNote: '(Mastra, issue 17)',
      },
      { id: '8b', what: '  JS heap in use', unit: 'KB/run', weft: first.heapKb },
      { id: '8c', what: '  JS heap reserved by V8 (heapTotal)', unit: 'KB/run', weft: first.reservedKb },
      {
        id: '8d',
        what: `RSS per run, the same burst again (young generation already sized)`,
        unit: 'KB/run',
        weft: second.rssKb,
        target: { kind: 'below', max: MASTRA_RSS_PER_RUN_KB },
        targetNote: '(Mastra, issue 17)',
      },
      { id: '8e', what: '  JS heap in use', unit: 'KB/run', weft: second.heapKb },
    ];
  } finally {
    await store.close();
  }
}
