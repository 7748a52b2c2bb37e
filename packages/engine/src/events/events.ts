/**
 * Run events: the append-only, sequence-numbered log every backend produces. The interpreter
 * and hosts emit `RunEventInput`s; the store stamps them with `seq` and `at`.
 */
import type { ErrorInfo } from '../errors.ts';
import type { TokenUsage } from '../interpreter/host.ts';
import type { Json } from '../json.ts';

export type RunStatus = 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';

export const RUN_STATUSES: readonly RunStatus[] = ['running', 'waiting', 'completed', 'failed', 'cancelled'];

/** A run in one of these states never changes again: the one definition every layer uses. */
export function isFinalStatus(status: RunStatus | string): status is 'completed' | 'failed' | 'cancelled' {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** The event that ends a run's log (nothing follows it but deltas that lost a race). */
export function isRunEndEvent(event: Pick<RunEventInput, 'type'>): boolean {
  return event.type === 'run.completed' || event.type === 'run.failed' || event.type === 'run.cancelled';
}

export type RunEventInput =
  | { type: 'run.started'; flowId: string; flowVersion: number; input: Json; backend: string; parentRunId?: string }
  | { type: 'step.started'; stepId: string; stepType: string; parentId?: string; input?: Json }
  /**
   * Streamed text of a model turn. `offset`: where `text` starts in the attempt's text; an attempt
   * that starts again (a retry, a resume after a crash) starts again at 0, so a reader can tell
   * text it already has from new text.
   */
  | { type: 'step.delta'; stepId: string; text: string; offset?: number }
  /** `reused`: answered from the run's seed (a replay's source run, a test case), not executed. */
  | { type: 'step.completed'; stepId: string; output: Json; usage?: TokenUsage; reused?: true }
  | { type: 'step.failed'; stepId: string; error: ErrorInfo; reused?: true }
  | { type: 'step.retrying'; stepId: string; attempt: number; error: ErrorInfo; delayMs: number }
  | { type: 'approval.requested'; stepId: string; prompt: string; timeoutMs?: number }
  | {
      type: 'approval.resolved';
      stepId: string;
      approved: boolean;
      by: string | null;
      comment: string | null;
      timedOut: boolean;
    }
  | { type: 'child.started'; stepId: string; childRunId: string; flowId: string }
  /** The run left the in-process runner at `checkpoint` and continues on `to` (flow `handoff`). */
  | { type: 'run.handed-off'; from: string; to: string; checkpoint: string }
  /**
   * The engine a run was handed off to could not be reached to start it (`error`): the run waits
   * for it, and is started as soon as the engine answers (`run.engine-reached`).
   */
  | { type: 'run.engine-unreachable'; engine: string; error: ErrorInfo }
  /** The engine a run waited for took it: the run goes on there. */
  | { type: 'run.engine-reached'; engine: string }
  | { type: 'run.completed'; output: Json }
  | { type: 'run.failed'; error: ErrorInfo }
  | { type: 'run.cancelled'; reason?: string };

export type RunEventType = RunEventInput['type'];

/** A stored event: what streams to the browser and what replay reads. */
export type RunEvent = RunEventInput & { runId: string; seq: number; at: number };

/**
 * The identity of an event within its run. A replay re-emits the events of steps it answers
 * from the journal; the store ignores an event whose key it already holds, so the log stays
 * exactly one entry per fact. Deltas have no key: they are appended as they come.
 */
export function eventKey(event: RunEventInput): string | null {
  switch (event.type) {
    case 'run.started':
    case 'run.handed-off':
    case 'run.completed':
    case 'run.failed':
    case 'run.cancelled':
      return event.type;
    case 'step.started':
    case 'step.completed':
    case 'step.failed':
    case 'approval.requested':
    case 'approval.resolved':
    case 'child.started':
      return `${event.type}:${event.stepId}`;
    case 'step.retrying':
      return `${event.type}:${event.stepId}:${event.attempt}`;
    // Each wait for the engine is a fact of its own: a run may wait again after a restart.
    case 'step.delta':
    case 'run.engine-unreachable':
    case 'run.engine-reached':
      return null;
  }
}
