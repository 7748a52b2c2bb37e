/**
 * Comparing two runs (of one flow, or a run and its replay) step by step, over the states the
 * reducer folds from their events: which steps are the same, different or ran in one only,
 * where they first diverge in execution order, and what changed — a structural diff of
 * status, input, output and error (microdiff), and per step and per run the tokens and time
 * each side used. Whether a checkpoint was reused (answered from a seed) is not a difference:
 * a replay that reused a step did the same there; its metrics say it spent nothing on it.
 */
import diff, { type Difference } from 'microdiff';

/** One change between two JSON values: CREATE / REMOVE / CHANGE at a path. */
export type JsonChange = Difference;

import { type Json, ownEntry } from '../json.ts';
import type { RunState, StepState } from './reducer.ts';

/** What one run's step used. */
export interface StepMetrics {
  /** Tokens of the step's model turns (its own usage, or its turns' for an llm step), as recorded. */
  tokens: number;
  /** Of those, the tokens this run paid for: a reused turn spent none. */
  spentTokens: number;
  /** How long the step took (null while it has not ended). */
  durationMs: number | null;
  /** Answered from the run's seed, not executed. */
  reused: boolean;
}

/** B minus A, for a step both runs took. */
export interface StepDelta {
  tokens: number;
  spentTokens: number;
  durationMs: number | null;
}

interface StepSides {
  stepId: string;
  stepType: string;
  /** What each run's step used; null on the side that did not take it. */
  a: StepMetrics | null;
  b: StepMetrics | null;
  /** B minus A; null when one run did not take the step. */
  delta: StepDelta | null;
}

export type StepComparison =
  | (StepSides & { kind: 'same' })
  | (StepSides & { kind: 'different'; changes: Difference[] })
  | (StepSides & { kind: 'only-a' | 'only-b' });

export interface RunComparison {
  /** Every step of either run: A's in its execution order, then those only B ran. */
  steps: StepComparison[];
  /** The first step in A's execution order that is not the same in B (then B's), if any. */
  firstDivergence: string | null;
  output: { same: boolean; changes: Difference[] };
  /**
   * B minus A: `tokens` as recorded by every model turn, `spentTokens` only those each run paid
   * for (a replay's reused turns cost nothing again).
   */
  delta: { tokens: number; spentTokens: number; durationMs: number | null };
}

/** What is compared of a step: what it did, not when or how long. */
function essence(step: StepState): Record<string, Json> {
  return {
    status: step.status,
    input: step.input,
    output: step.output,
    error: step.error ? { name: step.error.name ?? null, message: step.error.message } : null,
  };
}

function usageOf(step: StepState): number {
  return (step.usage?.inputTokens ?? 0) + (step.usage?.outputTokens ?? 0);
}

function tokens(state: RunState, spent: boolean): number {
  let total = 0;
  for (const step of Object.values(state.steps))
    if (step.stepType === 'model-turn' && !(spent && step.reused)) total += usageOf(step);
  return total;
}

/**
 * Per step of a run, its metrics. Model turns carry their usage; a step that holds turns (an
 * llm step, a map item's body) adds up those under its path, so a step's tokens are what it
 * cost wherever its turns were recorded.
 */
function metricsOf(state: RunState): Map<string, StepMetrics> {
  const metrics = new Map<string, StepMetrics>();
  for (const [stepId, step] of Object.entries(state.steps))
    metrics.set(stepId, { tokens: 0, spentTokens: 0, durationMs: step.durationMs, reused: step.reused === true });
  for (const [stepId, step] of Object.entries(state.steps)) {
    if (step.stepType !== 'model-turn') continue;
    const used = usageOf(step);
    const spent = step.reused ? 0 : used;
    // The turn itself and each step it sits under (`agent`, `each[2]`, `each`…).
    for (let path = stepId; path !== ''; path = parentPath(path)) {
      const entry = metrics.get(path);
      if (!entry) continue;
      entry.tokens += used;
      entry.spentTokens += spent;
    }
  }
  return metrics;
}

/** `agent/llm#3` → `agent`; `each[2]/pick` → `each[2]`; `each[2]` → `each`; a top step → ''. */
function parentPath(path: string): string {
  const slash = path.lastIndexOf('/');
  const item = /\[\d+\]$/.exec(path);
  if (item && (slash === -1 || item.index > slash)) return path.slice(0, item.index);
  return slash === -1 ? '' : path.slice(0, slash);
}

function deltaOf(a: StepMetrics, b: StepMetrics): StepDelta {
  return {
    tokens: b.tokens - a.tokens,
    spentTokens: b.spentTokens - a.spentTokens,
    durationMs: a.durationMs !== null && b.durationMs !== null ? b.durationMs - a.durationMs : null,
  };
}

function duration(state: RunState): number | null {
  return state.startedAt != null && state.endedAt != null ? state.endedAt - state.startedAt : null;
}

export function compareRuns(a: RunState, b: RunState): RunComparison {
  const metricsA = metricsOf(a);
  const metricsB = metricsOf(b);
  const steps: StepComparison[] = [];
  for (const stepId of a.order) {
    const stepA = ownEntry(a.steps, stepId);
    if (!stepA) continue;
    const stepB = ownEntry(b.steps, stepId);
    const sideA = metricsA.get(stepId) ?? null;
    if (!stepB) {
      steps.push({ stepId, stepType: stepA.stepType, kind: 'only-a', a: sideA, b: null, delta: null });
      continue;
    }
    const sideB = metricsB.get(stepId) ?? null;
    const sides = { a: sideA, b: sideB, delta: sideA && sideB ? deltaOf(sideA, sideB) : null };
    const changes = diff(essence(stepA), essence(stepB));
    steps.push(
      changes.length === 0
        ? { stepId, stepType: stepA.stepType, kind: 'same', ...sides }
        : { stepId, stepType: stepA.stepType, kind: 'different', changes, ...sides },
    );
  }
  for (const stepId of b.order) {
    const stepB = ownEntry(b.steps, stepId);
    if (stepB && ownEntry(a.steps, stepId) === undefined)
      steps.push({
        stepId,
        stepType: stepB.stepType,
        kind: 'only-b',
        a: null,
        b: metricsB.get(stepId) ?? null,
        delta: null,
      });
  }
  const outputChanges = diff({ output: a.output ?? null }, { output: b.output ?? null });
  const durationA = duration(a);
  const durationB = duration(b);
  return {
    steps,
    firstDivergence: steps.find((step) => step.kind !== 'same')?.stepId ?? null,
    output: { same: outputChanges.length === 0, changes: outputChanges },
    delta: {
      tokens: tokens(b, false) - tokens(a, false),
      spentTokens: tokens(b, true) - tokens(a, true),
      durationMs: durationA !== null && durationB !== null ? durationB - durationA : null,
    },
  };
}
