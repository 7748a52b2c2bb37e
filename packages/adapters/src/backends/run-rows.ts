/**
 * The run rows an external engine's run keeps in Weft's store: a spawned child's row (created
 * once, before the engine starts the child; a replay finds it) and the final status.
 */
import {
  type ErrorInfo,
  type Fixtures,
  type Flow,
  type FlowRef,
  type Json,
  type RunEventInput,
  toErrorInfo,
} from '@weft/engine';
import { reportRunEvents } from '../store/report-events.ts';
import type { JournalEntry, RunStore } from '../store/types.ts';
import { FlowNotFoundError, type FlowSource } from './flow-source.ts';
import type { ExternalBackendName } from './run-backend.ts';
import { seedEntries } from './seed.ts';

export interface ChildRequest {
  parentRunId: string;
  childRunId: string;
  stepId: string;
  ref: FlowRef;
  input: Json;
  fixtures: Fixtures | null;
  /** The child's part of its parent's seed (a replay from inside the child): kept as its seed. */
  seed?: JournalEntry[];
}

/** The child's flow, or why it cannot run. */
export interface ChildPlan {
  flow?: Flow;
  error?: ErrorInfo;
}

/** Resolves a spawned flow and records the child's run row (idempotent: a retry finds the row). */
export async function prepareChildRun(
  store: RunStore,
  flows: FlowSource,
  backend: ExternalBackendName,
  { parentRunId, childRunId, stepId, ref, input, fixtures, seed }: ChildRequest,
): Promise<ChildPlan> {
  const existing = await store.getRun(childRunId);
  if (existing) return { flow: existing.flow as unknown as Flow };
  const flow = await flows.getFlow(ref);
  if (!flow) return { error: toErrorInfo(new FlowNotFoundError(ref)) };
  await store.createRun({
    id: childRunId,
    flowId: flow.id,
    flowVersion: flow.version ?? 1,
    flow: flow as unknown as Json,
    input,
    backend,
    parentRunId,
    parentStepId: stepId,
    status: 'running',
    ...(fixtures ? { fixtures: fixtures as Json } : {}),
  });
  if (seed && seed.length > 0) await store.commit([{ runId: childRunId, journal: seedEntries(seed), events: [] }]);
  return { flow };
}

export type RunEnd = { status: 'completed'; output: Json } | { status: 'failed' | 'cancelled'; error: ErrorInfo };

/** Writes the terminal event and the run row's final status, output and error. */
export async function finishExternalRun(
  store: RunStore,
  runId: string,
  end: RunEnd,
  events: RunEventInput[],
): Promise<void> {
  await reportRunEvents(store, runId, events);
  await store.updateRun(runId, {
    status: end.status,
    output: end.status === 'completed' ? end.output : null,
    error: end.status === 'completed' ? null : end.error,
  });
}

/** Records a run as cancelled: its last event and its row (the engine stops it separately). */
export async function recordCancelled(store: RunStore, runId: string): Promise<void> {
  await store.commit([{ runId, journal: [], events: [{ type: 'run.cancelled', reason: 'cancelled' }] }]);
  await store.updateRun(runId, { status: 'cancelled', error: { name: 'Cancelled', message: 'the run was cancelled' } });
}
