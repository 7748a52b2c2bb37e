/**
 * Saving a run as a test case: what the run's calls were answered with (its journal, seed
 * entries of a replay merged: backends/seed.ts `recordedResults`), its approval decisions, and
 * what it produced — its output and the steps it started, in order.
 */
import { type Fixtures, isJsonObject, type Json, type RunEvent } from '@weft/engine';
import { recordedResults } from '../backends/seed.ts';
import { UnknownRunError } from '../inprocess/errors.ts';
import type { RunStore } from '../store/types.ts';
import { type CaseApproval, DEFAULT_MATCH, type MatchKind, TEST_FORMAT_VERSION, type TestCase } from './case-format.ts';
import { schemaOfValue } from './output-schema.ts';

/** The journal kinds a seed answers; sleeps (timers) and anything else are not recorded. */
export const RECORDED_KINDS: ReadonlySet<string> = new Set(['model-turn', 'tool', 'code', 'http', 'spawn']);

export interface CaseFromRunOptions {
  /** Default: `<flowId>-<short run id>`. */
  name?: string;
  /** What must match when the case runs (default: steps and output). */
  match?: readonly MatchKind[];
  /**
   * For `output-schema`: the JSON Schema the output must fit. Default: one inferred from the
   * run's output (its types and keys), for the user to loosen or tighten by hand.
   */
  outputSchema?: Record<string, Json> | boolean;
}

/** Only a run that completed is a test: its output and steps are what the case expects. */
export class RunNotCompletedError extends Error {
  readonly runId: string;
  readonly status: string;
  constructor(runId: string, status: string) {
    super(`run ${runId} is ${status}, not completed: only a completed run can be saved as a test`);
    this.name = 'RunNotCompletedError';
    this.runId = runId;
    this.status = status;
  }
}

export async function caseFromRun(store: RunStore, runId: string, options: CaseFromRunOptions = {}): Promise<TestCase> {
  const run = await store.getRun(runId);
  if (!run) throw new UnknownRunError(runId);
  if (run.status !== 'completed') throw new RunNotCompletedError(run.id, run.status);
  const events = await store.readEvents(run.id);
  const steps = startedSteps(events);
  // Seed entries the run never asked for are left out: the case holds what this run needed.
  const recorded = recordedResults(await store.loadJournal(run.id), new Set(steps)).filter((entry) =>
    RECORDED_KINDS.has(entry.kind),
  );
  const match = [...(options.match ?? DEFAULT_MATCH)];
  const output = run.output ?? null;
  const outputSchema = options.outputSchema ?? (match.includes('output-schema') ? schemaOfValue(output) : undefined);
  const fixtures = run.fixtures as Fixtures | null;
  return {
    weftTest: TEST_FORMAT_VERSION,
    name: options.name ?? `${run.flowId}-${shortRunId(run.id)}`,
    flow: { id: run.flowId, version: run.flowVersion },
    match,
    input: run.input,
    expect: { steps, output, ...(outputSchema !== undefined ? { outputSchema } : {}) },
    approvals: await approvalsOf(store, run.id, events),
    ...(fixtures && Object.keys(fixtures).length > 0 ? { fixtures } : {}),
    recorded,
    fromRun: run.id,
  };
}

/** `run_3f9a1c2e…` → `3f9a1c2e`: enough to tell a flow's cases apart in a file name. */
export function shortRunId(runId: string): string {
  return runId.replace(/^run_/, '').slice(0, 8);
}

/** Every step and checkpoint the run started, in the order it started them, each once. */
export function startedSteps(events: readonly RunEvent[]): string[] {
  const seen = new Set<string>();
  for (const event of events) if (event.type === 'step.started') seen.add(event.stepId);
  return [...seen];
}

/**
 * Each decision the run was given, with the time the approval step put in its output (so the
 * output comes out the same when the case gives the decision back), else its record's, else the
 * event's.
 */
async function approvalsOf(
  store: RunStore,
  runId: string,
  events: readonly RunEvent[],
): Promise<Record<string, CaseApproval>> {
  const approvals: Record<string, CaseApproval> = {};
  const outputAt = new Map<string, string>();
  for (const event of events)
    if (event.type === 'step.completed' && isJsonObject(event.output) && typeof event.output.at === 'string')
      outputAt.set(event.stepId, event.output.at);
  for (const event of events) {
    if (event.type !== 'approval.resolved') continue;
    const record = await store.getApproval(runId, event.stepId);
    const at = outputAt.get(event.stepId) ?? new Date(record?.decidedAt ?? event.at).toISOString();
    approvals[event.stepId] = event.timedOut
      ? { timedOut: true, at }
      : { approved: event.approved, by: event.by, comment: event.comment, at };
  }
  return approvals;
}
