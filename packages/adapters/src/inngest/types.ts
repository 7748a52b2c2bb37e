/** What crosses between Weft and Inngest: event names and their data (plain JSON only). */
import type { ErrorInfo } from '@weft/engine';

/** The Inngest app all Weft functions belong to. */
export const INNGEST_APP_ID = 'weft';
/** The one generic function that runs every Weft flow. */
export const FUNCTION_ID = 'weft-flow';

/** Starts a run; the event id is the run id, so a duplicate start is a no-op. */
export const RUN_EVENT = 'weft/run.requested';
/** A person's decision on an approval, matched by run id and step id. */
export const DECISION_EVENT = 'weft/approval.decided';
/** Cancels a run (the function's `cancelOn`). */
export const CANCEL_EVENT = 'weft/run.cancel-requested';

/** The run row (with its pinned flow snapshot, input and fixtures) is in Weft's store under `runId`. */
export interface RunEventData {
  runId: string;
  flowId: string;
  flowVersion: number;
  /** How many ancestors this run has (spawn nesting). */
  depth?: number;
  /**
   * Whether the run was started with a seeded journal. `false` lets the function skip reading
   * the seed (one Inngest step, one round trip to the server); absent (an event sent by an older
   * Weft) means it may have one.
   */
  seeded?: boolean;
}

export interface DecisionEventData {
  runId: string;
  stepId: string;
  approved: boolean;
  by: string | null;
  comment: string | null;
  /** ISO time of the decision. */
  at: string;
}

export interface CancelEventData {
  runId: string;
}

/** What a step.run returns for a call whose failure is final: the error travels as data, exactly. */
export interface CallFailed {
  weftCallFailed: ErrorInfo;
}
