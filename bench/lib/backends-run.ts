/**
 * What bench/backends runs and how it times it: the three scenarios (the flow for Weft, the job
 * for the native programs, and the checks of both results), and the timing loop.
 */
import type { RunStore } from '../../packages/adapters/src/store/index.ts';
import type { Fixtures, Json, RunEvent } from '../../packages/engine/src/index.ts';
import { checkAgentOutput } from '../scenarios/memory.ts';
import { AGENT_STEP, agentFixtures, agentFlow, fanOutFlow, sequentialFlow } from './flows.ts';
import { median } from './measure.ts';
import type { NativeJob, NativeTurn } from './native-agent.ts';

export interface Sizes {
  steps: number;
  fanOut: number;
  turns: number;
}

/** Untimed rounds, then timed rounds (medians reported); `budgetMs` ends the timed rounds early, after at least one. */
export interface Plan {
  warmup: number;
  warmupMs: number;
  rounds: number;
  minMs: number;
  budgetMs: number;
}

export interface Scenario {
  name: string;
  doc: Json;
  fixtures?: Fixtures;
  /** What µs/unit divides by: steps, branches or turns. */
  units: number;
  unit: 'step' | 'turn';
  /** The same scenario for the native programs. */
  native: NativeJob;
  /** Issue 17 sets a target for in-process / raw on the sequential scenario only. */
  sequential: boolean;
  /** Throws unless the finished run is the expected one. */
  verify(output: Json, events: readonly RunEvent[]): void;
  /** Throws unless a native program's result is the expected one. */
  verifyNative(result: unknown): void;
}

function completedSteps(events: readonly RunEvent[], pattern: RegExp): number {
  const ids = new Set<string>();
  for (const event of events) if (event.type === 'step.completed' && pattern.test(event.stepId)) ids.add(event.stepId);
  return ids.size;
}

function expectCount(what: string, actual: number, expected: number): void {
  if (actual !== expected) throw new Error(`${what}: ${actual}, expected ${expected}`);
}

export function scenarios(sizes: Sizes): Scenario[] {
  const { steps, fanOut, turns } = sizes;
  return [
    {
      name: `${steps.toLocaleString('en-US')} sequential no-op steps`,
      doc: sequentialFlow(steps),
      units: steps,
      unit: 'step',
      native: { kind: 'sequential', steps },
      sequential: true,
      verifyNative: (result) => expectCount('native sequential steps', result as number, steps),
      verify: (_output, events) => expectCount('completed sequential steps', completedSteps(events, /^s\d+$/), steps),
    },
    {
      name: `${fanOut}-wide parallel fan-out`,
      doc: fanOutFlow(fanOut),
      units: fanOut,
      unit: 'step',
      native: { kind: 'fanOut', width: fanOut },
      sequential: false,
      verifyNative: (result) => expectCount('native fan-out branches', result as number, fanOut),
      verify: (output, events) => {
        expectCount('completed branch steps', completedSteps(events, /^fan\.b\d+\/t\d+$/), fanOut);
        expectCount('completed parallel step', completedSteps(events, /^fan$/), 1);
        expectCount('branches in the output', Object.keys((output ?? {}) as object).length, fanOut);
      },
    },
    {
      name: `${turns}-turn agent loop (mock model)`,
      doc: agentFlow(turns),
      fixtures: agentFixtures(turns),
      units: turns,
      unit: 'turn',
      native: { kind: 'agent', fixtures: agentFixtures(turns)[AGENT_STEP] as NativeTurn[] },
      sequential: false,
      verify: (output) => checkAgentOutput(output, turns),
      verifyNative: (result) => checkAgentOutput(result as Json, turns),
    },
  ];
}

/** Checks a finished run through its store: completed, and the scenario's own checks. */
export async function verifyRun(store: RunStore, runId: string, scenario: Scenario, backend: string): Promise<void> {
  const run = await store.getRun(runId);
  if (!run) throw new Error(`${backend}: run ${runId} not found`);
  if (run.status !== 'completed') {
    throw new Error(`${backend}: ${scenario.name}: run ${runId} ended ${run.status}: ${JSON.stringify(run.error)}`);
  }
  try {
    scenario.verify(run.output as Json, await store.readEvents(runId));
  } catch (error) {
    throw new Error(`${backend}: ${scenario.name}: run ${runId}: ${(error as Error).message}`);
  }
}

export interface Measured {
  /** Every timed run, in ms. */
  runsMs: number[];
  medianMs: number;
  budgetHit: boolean;
}

/** One side of a pair: a run, and the check of what it returned (after its timing). */
export interface Side<T> {
  once(): Promise<T>;
  verify(result: T): Promise<void> | void;
}

export interface PairMeasured {
  weft: Measured;
  native: Measured;
  /** The median of the rounds' weft / native ratios. */
  ratio: number;
}

/**
 * Warm-up runs, then timed rounds of one Weft run and one native run in turn (every run,
 * warm-up included, verified after its timing). Taken in turn, a slow spell of the machine
 * (another process, a dev server's background work) lands on both sides of a round instead
 * of on one side's whole series; the ratio is the median of the rounds' ratios.
 */
export async function measurePaired<W, N>(
  plan: Plan,
  weftSide: Side<W>,
  nativeSide: Side<N>,
  progress: (message: string) => void,
): Promise<PairMeasured> {
  let start = performance.now();
  for (let i = 0; i < plan.warmup || performance.now() - start < plan.warmupMs; i++) {
    await weftSide.verify(await weftSide.once());
    await nativeSide.verify(await nativeSide.once());
  }
  const weft: number[] = [];
  const native: number[] = [];
  const ratios: number[] = [];
  let budgetHit = false;
  start = performance.now();
  for (;;) {
    const elapsed = performance.now() - start;
    const enough = weft.length >= plan.rounds && elapsed >= plan.minMs;
    if (enough || weft.length >= 200) break;
    if (weft.length >= 1 && elapsed >= plan.budgetMs) {
      budgetHit = true;
      break;
    }
    const weftMs = await timed(weftSide);
    const nativeMs = await timed(nativeSide);
    weft.push(weftMs);
    native.push(nativeMs);
    ratios.push(weftMs / nativeMs);
    if (weftMs + nativeMs > 5_000)
      progress(`  round ${weft.length}: ${(weftMs / 1000).toFixed(1)} s, native ${(nativeMs / 1000).toFixed(1)} s`);
  }
  return {
    weft: { runsMs: weft, medianMs: median(weft), budgetHit },
    native: { runsMs: native, medianMs: median(native), budgetHit },
    ratio: median(ratios),
  };
}

async function timed<T>(side: Side<T>): Promise<number> {
  const t0 = performance.now();
  const result = await side.once();
  const ms = performance.now() - t0;
  await side.verify(result);
  return ms;
}
