/** What `RunService` refuses, each naming the run, step or backend concerned. */
import type { ApprovalRecord, RunRecord } from '../store/types.ts';

/** The run names a backend this process has not opened (or that does not exist). */
export class BackendUnavailableError extends Error {
  readonly backend: string;
  readonly available: readonly string[];
  /** `field`: what named the backend (`backend`, or `handoff.to` for a hand-off's target). */
  constructor(backend: string, available: readonly string[], hint?: string, field = 'backend') {
    super(`${field}: ${backend} is not available${hint ? ` (${hint})` : ''}; available: ${available.join(', ')}`);
    this.name = 'BackendUnavailableError';
    this.backend = backend;
    this.available = available;
  }
}

/** The backend did not accept a recorded run; the run has ended `failed` with this message. */
export class BackendRefusedError extends Error {
  constructor(backend: string, cause: unknown) {
    super(`${backend} did not accept the run: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'BackendError';
  }
}

export class ApprovalNotFoundError extends Error {
  constructor(runId: string, stepId: string) {
    super(`stepId: run '${runId}' has no approval at step '${stepId}'`);
    this.name = 'ApprovalNotFoundError';
  }
}

/** The approval was decided already (or timed out); `approval` says by whom and how. */
export class ApprovalClosedError extends Error {
  readonly approval: ApprovalRecord;
  constructor(approval: ApprovalRecord) {
    const verdict = approval.status === 'timed-out' ? 'timed out' : approval.status;
    super(
      `the approval at '${approval.stepId}' was already ${verdict}${approval.decidedBy ? ` by ${approval.decidedBy}` : ''}`,
    );
    this.name = 'ApprovalClosedError';
    this.approval = approval;
  }
}

/** The run has ended: it takes no decisions and cannot be resumed. */
export class RunEndedError extends Error {
  readonly run: RunRecord;
  constructor(run: RunRecord, what: string) {
    super(`run '${run.id}' is ${run.status}; ${what}`);
    this.name = 'RunEndedError';
    this.run = run;
  }
}

/** A replay would fire side effects again and the caller has not confirmed them. */
export class SideEffectsUnconfirmedError extends Error {
  readonly sideEffects: readonly { stepId: string; stepType: string }[];
  constructor(sideEffects: readonly { stepId: string; stepType: string }[]) {
    super(
      `confirmSideEffects: this replay runs ${sideEffects.length} step(s) with side effects again (${sideEffects
        .map((effect) => `${effect.stepId} (${effect.stepType})`)
        .join(', ')}); confirm them to start it`,
    );
    this.name = 'SideEffectsUnconfirmedError';
    this.sideEffects = sideEffects;
  }
}

/** `version: 'current'` of a flow this process cannot find. */
export class UnknownFlowVersionError extends Error {
  constructor(flowId: string, why?: string) {
    super(
      `version: ${why ?? `no current version of flow '${flowId}' is known here (save it, or give the folder of flows)`}`,
    );
    this.name = 'UnknownFlowVersionError';
  }
}
