/**
 * What a case's run did, against what the case expects: the first difference, or undefined when
 * it passes. A refused call comes first (it is the cause: the flow or input changed at that
 * step), then a run that did not complete, then what `match` asks for, in a fixed order — the
 * step sequence (where the runs part), the output exactly, the output by schema.
 */
import type { ErrorInfo, Json } from '@weft/engine';
import type { MatchKind, TestCase } from './case-format.ts';
import { outputDifference } from './diff-output.ts';
import { stepsDifference } from './diff-steps.ts';
import { describeKind, type RefusedCall } from './offline-executors.ts';
import { schemaMismatch } from './output-schema.ts';

export interface CaseRun {
  status: string;
  output: Json;
  error: ErrorInfo | null;
  /** Every step.started, in order. */
  steps: readonly string[];
  /** Calls no recording answered, in the order they were made. */
  refused: readonly RefusedCall[];
  /** Approvals the run parked on. */
  waitingAt: readonly string[];
}

const ORDER: readonly MatchKind[] = ['steps', 'output', 'output-schema'];

export function firstDifference(testCase: TestCase, run: CaseRun): string | undefined {
  const [call] = run.refused;
  if (call)
    return `step '${call.stepId}' ran with input the case has no recorded result for (${describeKind(call.kind)}): the flow or its input changed since the case was saved`;
  if (run.status !== 'completed') {
    if (run.status === 'waiting' && run.waitingAt.length > 0)
      return `the run waits for the approval at '${run.waitingAt[0]}', which the case has no decision for`;
    if (run.status === 'failed') return `the run failed: ${run.error?.message ?? 'no reason recorded'}`;
    return `the run is ${run.status}, not completed`;
  }
  const { expect } = testCase;
  for (const kind of ORDER) {
    if (!testCase.match.includes(kind)) continue;
    const difference =
      kind === 'steps'
        ? stepsDifference(expect.steps ?? [], run.steps)
        : kind === 'output'
          ? outputDifference(expect.output ?? null, run.output)
          : schemaMismatch(expect.outputSchema ?? true, run.output);
    if (difference) return difference;
  }
  return undefined;
}
