/**
 * What an execution backend implements to run the conformance suite. Deliberately asynchronous
 * and message-shaped, so each backend maps it onto what it already has:
 *
 * | method      | in-process                         | Inngest                          | Temporal                         |
 * |-------------|------------------------------------|----------------------------------|----------------------------------|
 * | start       | create the run, execute it in the background | send the start event     | `client.workflow.start`          |
 * | decide      | `runner.approve` (resumes by replay) | send the approval event (`waitForEvent`) | signal the workflow          |
 * | waitForEnd  | await the execution                | poll the run / its final event   | `handle.result()`                |
 * | events      | the store's event log              | the events the function emitted  | the events the workflow emitted  |
 *
 * The suite never assumes `start` returns only when the run has ended or parked: it polls
 * `events` for `approval.requested` before it decides, and then waits for the end.
 */
import type { ErrorInfo, Fixtures, Flow, Json, RunEvent, RunStatus } from '@weft/engine';
import type { ReplayPreview, ReplayRequest } from '../src/service/index.ts';

export interface ConformanceStart {
  /** The flow to run, already validated. */
  flow: Flow;
  /** Every flow a run may spawn or call as a tool (the example corpus), validated. */
  flows: readonly Flow[];
  input: Json;
  /** Recorded model turns per llm step id/path; `{}` when the flow runs on mock:echo. */
  fixtures: Fixtures;
}

/** A person's answer to an `approval` step. */
export interface ApprovalDecision {
  approved: boolean;
  by?: string;
  comment?: string;
}

export interface ConformanceRunResult {
  status: RunStatus;
  output: Json | null;
  error: ErrorInfo | null;
}

export interface ConformanceAdapter {
  /** Shown in failure messages, e.g. "inprocess (sqlite)". */
  readonly name: string;
  /**
   * Starts a run and resolves with its id as soon as the backend has accepted it. HTTP steps
   * in the corpus call the suite's own server on 127.0.0.1, so the backend's executors must
   * allow private network addresses (`http: { allowPrivateNetwork: true }`).
   */
  start(options: ConformanceStart): Promise<{ runId: string }>;
  /**
   * Resolves the approval `stepId` (the full step path, e.g. "gate/signoff") of a run that has
   * emitted `approval.requested` for it. May return before the run has resumed.
   */
  decide(runId: string, stepId: string, decision: ApprovalDecision): Promise<void>;
  /**
   * Resolves when the run has ended (completed, failed or cancelled). A backend that can tell
   * may resolve earlier with status 'waiting' when the run has parked and nothing is due to
   * wake it, so a stuck run fails its case at once instead of at the timeout.
   */
  waitForEnd(runId: string): Promise<ConformanceRunResult>;
  /** The run's event log so far, in sequence order (deltas may be included; the suite drops them). */
  events(runId: string): Promise<RunEvent[]>;
  /**
   * Starts a new run from a checkpoint of an ended one (`RunService.replay`): what completed
   * before `from` is answered from the source's journal, `pins` with the given values.
   */
  replay(
    runId: string,
    request: ReplayRequest & {
      /** The flows as they are now (saved since the source ran), for `version: 'current'`. */
      current?: readonly Flow[];
    },
  ): Promise<{ runId: string } & ReplayPreview>;
  /**
   * The checkpoints the engine itself scheduled for a run, from its own history (Temporal's
   * activities, Inngest's run trace), where the test can read one: proof that a replay's reused ones were not.
   */
  engineCalls?(runId: string): Promise<string[]>;
  /**
   * Starts a run on the in-process runner beside this (external) backend, in the same store and
   * service, handing off to this backend at `handOffAt` when given (`RunService.start` with
   * `handoff`): how the hand-off cases compare a handed-off run with one that stayed in-process.
   * Absent for the in-process backend itself, which is never a hand-off's target.
   */
  startInProcess?(options: ConformanceStart & { handOffAt?: string }): Promise<{ runId: string }>;
  /** Stops workers and frees every resource the adapter holds. */
  close(): Promise<void>;
}

/** Builds a fresh adapter; called once per suite (before all cases), closed after them. */
export type MakeConformanceAdapter = () => Promise<ConformanceAdapter>;
