/**
 * Running a test case, fully offline: the case's flow (the flow source's current version, which
 * is what a test guards) starts with the saved input on a fresh in-memory store, through the same
 * RunService and in-process runner as any run, seeded with the case's recordings and decisions.
 * A call the recordings answer costs nothing; any other is refused (offline-executors.ts), and an
 * approval the case has no decision for parks the run. Then what came out is compared with what
 * the case expects (compare-case.ts).
 */
import type { Json } from '@weft/engine';
import type { FlowSource } from '../backends/flow-source.ts';
import { APPROVAL_KIND } from '../backends/seed.ts';
import { inProcessBackend } from '../inprocess/backend.ts';
import { InProcessRunner } from '../inprocess/runner.ts';
import { RunService } from '../service/run-service.ts';
import { openStore } from '../store/index.ts';
import type { JournalEntry } from '../store/types.ts';
import type { CaseApproval, TestCase } from './case-format.ts';
import { startedSteps } from './case-from-run.ts';
import { firstDifference } from './compare-case.ts';
import { offlineExecutors, type RefusedCall } from './offline-executors.ts';

/** How one case went. `error`: it could not run (no such flow, invalid file); `firstDifference`: it ran and differs. */
export interface CaseResult {
  name: string;
  file: string;
  flowId?: string;
  passed: boolean;
  durationMs: number;
  firstDifference?: string;
  error?: string;
}

export interface RunCaseOptions {
  /** Where the case's flow, and any flow it spawns, is found by id. */
  flows: FlowSource;
  /** Where the flows come from, for the message when the case's flow is not there. */
  flowsLabel?: string;
  /** The case's file, for the result. */
  file?: string;
  /** A run still going after this long is cancelled and fails the case. Default 60 s. */
  timeoutMs?: number;
}

export const DEFAULT_CASE_TIMEOUT_MS = 60_000;

export async function runCase(testCase: TestCase, options: RunCaseOptions): Promise<CaseResult> {
  const started = performance.now();
  const result = (outcome: { firstDifference: string } | { error: string } | { passed: true }): CaseResult => ({
    name: testCase.name,
    file: options.file ?? '',
    flowId: testCase.flow.id,
    passed: 'passed' in outcome,
    durationMs: Math.round(performance.now() - started),
    ...('passed' in outcome ? {} : outcome),
  });
  const flow = await options.flows.getFlow({ id: testCase.flow.id });
  if (!flow) {
    const where = options.flowsLabel ? ` in ${options.flowsLabel}` : '';
    return result({ error: `flow '${testCase.flow.id}' not found${where} (or it is invalid)` });
  }
  const refused: RefusedCall[] = [];
  const store = await openStore({ url: ':memory:' });
  const backend = inProcessBackend(
    // No decider: an approval the seed does not decide parks the run, which the result reports.
    new InProcessRunner({ store, executors: offlineExecutors((call) => refused.push(call)), flows: options.flows }),
  );
  const service = new RunService({ store, backends: [backend], flows: options.flows });
  try {
    let runId: string;
    try {
      ({ runId } = await service.start({
        flow,
        input: testCase.input,
        ...(testCase.fixtures ? { fixtures: testCase.fixtures } : {}),
        seed: [...testCase.recorded, ...approvalSeed(testCase.approvals)],
      }));
    } catch (error) {
      // The flow as it is now refuses the saved input (its input schema changed), or is invalid.
      return result({ error: `the run could not start: ${(error as Error).message}` });
    }
    const ended = await settles(backend.settled(), options.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS);
    if (!ended) {
      await service.cancel(runId).catch(() => undefined);
      const seconds = (options.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS) / 1000;
      return result({ firstDifference: `the run did not end within ${seconds} s (a sleep, or a step that waits)` });
    }
    const run = await store.getRun(runId);
    const events = await store.readEvents(runId);
    const difference = firstDifference(testCase, {
      status: run?.status ?? 'unknown',
      output: (run?.output ?? null) as Json,
      error: run?.error ?? null,
      steps: startedSteps(events),
      refused,
      waitingAt: waitingAt(events),
    });
    return result(difference ? { firstDifference: difference } : { passed: true });
  } catch (error) {
    return result({ error: (error as Error).message });
  } finally {
    await service.close();
    await store.close().catch(() => undefined);
  }
}

/** The case's decisions as the seed gives them to approval steps (backends/seed.ts `seedDecision`). */
export function approvalSeed(approvals: Readonly<Record<string, CaseApproval>>): JournalEntry[] {
  return Object.entries(approvals).map(([stepId, decision]) => ({
    stepId,
    kind: APPROVAL_KIND,
    inputHash: APPROVAL_KIND,
    status: 'completed',
    output:
      'timedOut' in decision
        ? { approved: false, by: null, comment: null, timedOut: true, at: decision.at }
        : { approved: decision.approved, by: decision.by, comment: decision.comment, timedOut: false, at: decision.at },
    error: null,
  }));
}

/** The approval steps a parked run asked about and nobody decided. */
function waitingAt(events: readonly { type: string; stepId?: string }[]): string[] {
  const asked = new Set<string>();
  for (const event of events) {
    if (event.type === 'approval.requested' && event.stepId) asked.add(event.stepId);
    if (event.type === 'approval.resolved' && event.stepId) asked.delete(event.stepId);
  }
  return [...asked];
}

async function settles(work: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
