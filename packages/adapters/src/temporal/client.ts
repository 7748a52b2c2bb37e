/**
 * Starting and steering Weft runs on Temporal: the run row lives in Weft's store (backend
 * 'temporal', recorded by RunService before the start), the workflow id is the run id, and the workflow itself writes the events and
 * the final status through its activities.
 */
import {
  Client,
  Connection,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowIdReusePolicy,
} from '@temporalio/client';
import type { Fixtures, Flow, Json, ToolSpec } from '@weft/engine';
import type { JournalEntry } from '../store/types.ts';
import {
  APPROVE_SIGNAL,
  type ApproveSignal,
  CARRIED_WRITES,
  DEFAULT_TASK_QUEUE,
  LEAN_TURNS,
  type WeftFlowArgs,
  WORKFLOW_TYPE,
} from './types.ts';

export async function connectTemporal(options: { address: string; namespace?: string }): Promise<Client> {
  const connection = await Connection.connect({ address: options.address });
  return new Client({ connection, namespace: options.namespace ?? 'default' });
}

export interface StartTemporalRunOptions {
  client: Client;
  runId: string;
  flow: Flow;
  input: Json;
  fixtures?: Fixtures;
  hostTools?: Record<string, Omit<ToolSpec, 'name'>>;
  /** Journal entries answering calls instead of activities (RunHandOver.seed). */
  seed?: readonly JournalEntry[];
  taskQueue?: string;
}

/**
 * Starts the workflow of a run already recorded in the store (RunService.start records it).
 * Keyed by the run id, once: a second start (a hand-off repeated after a crash) is a no-op,
 * whether the workflow is still open or already closed — never a second execution.
 */
export async function startTemporalRun(options: StartTemporalRunOptions): Promise<void> {
  const { client, runId } = options;
  const args: WeftFlowArgs = {
    runId,
    flow: options.flow,
    input: options.input,
    ...(options.fixtures ? { fixtures: options.fixtures } : {}),
    ...(options.hostTools ? { hostTools: options.hostTools } : {}),
    ...(options.seed && options.seed.length > 0 ? { seed: [...options.seed] } : {}),
    writes: CARRIED_WRITES,
    turns: LEAN_TURNS,
  };
  try {
    await client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
      workflowId: runId,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      args: [args],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** Sends a person's decision on the approval at `stepId` to the run's workflow. */
export async function approveTemporalRun(client: Client, runId: string, decision: ApproveSignal): Promise<void> {
  await client.workflow.getHandle(runId).signal(APPROVE_SIGNAL, decision);
}

/** Waits for the workflow to end (a failed run is an end, not an error). */
export async function awaitTemporalRun(client: Client, runId: string): Promise<void> {
  try {
    await client.workflow.getHandle(runId).result();
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
  }
}

export async function cancelTemporalRun(client: Client, runId: string): Promise<void> {
  await client.workflow.getHandle(runId).cancel();
}
