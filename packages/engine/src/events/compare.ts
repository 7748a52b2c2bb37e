/**
 * Comparing two runs (of one flow, or a run and its replay) step by step, over the states the
 * reducer folds from their events: which steps are the same, different or ran in one only,
 * where they first diverge in execution order, and what changed — a structural diff of
 * status, input, output and error (microdiff), and the tokens and time each side spent.
 */
import diff, { type Difference } from 'microdiff';

/** One change between two JSON values: CREATE / REMOVE / CHANGE at a path. */
export type JsonChange = Difference;

import { type Json, ownEntry } from '../json.ts';
import type { RunState, StepState } from './reducer.ts';

export type StepComparison =
  | { stepId: string; stepType: string; kind: 'same' }
  | { stepId: string; stepType: string; kind: 'different'; changes: Difference[] }
  | { stepId: string; stepType: string; kind: 'only-a' | 'only-b' };

export interface RunComparison {
  /** Every step of either run: A's in its execution order, then those only B ran. */
  steps: StepComparison[];
  /** The first step in A's execution order that is not the same in B (then B's), if any. */
  firstDivergence: string | null;
  output: { same: boolean; changes: Difference[] };
  /** B minus A. */
  delta: { tokens: number; durationMs: number | null };
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

function tokens(state: RunState): number {
  let total = 0;
  for (const step of Object.values(state.steps))
    if (step.stepType === 'model-turn') total += (step.usage?.inputTokens ?? 0) + (step.usage?.outputTokens ?? 0);
  return total;
}

function duration(state: RunState): number | null {
  return state.startedAt != null && state.endedAt != null ? state.endedAt - state.startedAt : null;
}

export function compareRuns(a: RunState, b: RunState): RunComparison {
  const steps: StepComparison[] = [];
  for (const [stepId, stepA] of Object.entries(a.steps)) {
    const stepB = ownEntry(b.steps, stepId);
    if (!stepB) {
      steps.push({ stepId, stepType: stepA.stepType, kind: 'only-a' });
      continue;
    }
    const changes = diff(essence(stepA), essence(stepB));
    steps.push(
      changes.length === 0
        ? { stepId, stepType: stepA.stepType, kind: 'same' }
        : { stepId, stepType: stepA.stepType, kind: 'different', changes },
    );
  }
  for (const [stepId, stepB] of Object.entries(b.steps))
    if (ownEntry(a.steps, stepId) === undefined) steps.push({ stepId, stepType: stepB.stepType, kind: 'only-b' });
  const outputChanges = diff({ output: a.output ?? null }, { output: b.output ?? null });
  const durationA = duration(a);
  const durationB = duration(b);
  return {
    steps,
    firstDivergence: steps.find((step) => step.kind !== 'same')?.stepId ?? null,
    output: { same: outputChanges.length === 0, changes: outputChanges },
    delta: {
      tokens: tokens(b) - tokens(a),
      durationMs: durationA !== null && durationB !== null ? durationB - durationA : null,
    },
  };
}
