/**
 * Named errors. Expected failures (validation problems) are returned as values; these are
 * thrown when a run cannot go on. Every class carries a stable `code` so errors survive
 * serialization into events and the journal.
 */
export class WeftError extends Error {
  readonly code: string = 'weft_error';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A step's own failure after its retries (the `fail` step, a code error, a provider error). */
export class StepFailedError extends WeftError {
  override readonly code: string = 'step_failed';
  readonly stepId: string;
  constructor(stepId: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.stepId = stepId;
  }
}

/** The flow changed under a live run: the interpreter asked for something the journal does not hold. */
export class DeterminismError extends WeftError {
  override readonly code = 'determinism';
}

/** An expression failed to parse or evaluate. `position` is the 0-based offset into the source. */
export class ExpressionError extends WeftError {
  override readonly code = 'expression';
  readonly source: string;
  readonly position: number | undefined;
  constructor(message: string, source: string, position?: number) {
    super(message);
    this.source = source;
    this.position = position;
  }
}

/** The flow document is not valid IR; `issues` are the same values `validateFlow` returns. */
export class FlowInvalidError extends WeftError {
  override readonly code = 'flow_invalid';
  readonly issues: readonly { stepId: string | null; path: string; message: string }[];
  constructor(issues: readonly { stepId: string | null; path: string; message: string }[]) {
    super(
      `flow is invalid: ${issues
        .slice(0, 5)
        .map((i) => `${i.path}: ${i.message}`)
        .join('; ')}${issues.length > 5 ? ` (+${issues.length - 5} more)` : ''}`,
    );
    this.issues = issues;
  }
}

/** An error a retry cannot fix (bad configuration, a sandbox syntax error): fail at once. */
export class NonRetryableError extends WeftError {
  override readonly code: string = 'non_retryable';
}

/**
 * Thrown by a host to stop the interpreter without failing the run: the run parks (waiting
 * for an approval, a child run, a timer), was cancelled, or leaves this engine to continue on
 * another with its journal so far (a hand-off). The interpreter never catches it; the host
 * decides what happens next. Recognised by a brand, not `instanceof`, so an interrupt from
 * another copy of the module (a Temporal bundle) is still recognised.
 */
export type RunInterruptReason = 'suspended' | 'cancelled' | 'handed-off';

export class RunInterrupt extends WeftError {
  override readonly code = 'interrupt';
  readonly weftInterrupt = true;
  readonly reason: RunInterruptReason;
  constructor(reason: RunInterruptReason, message?: string) {
    super(message ?? `run ${reason}`);
    this.reason = reason;
  }
}

export function isRunInterrupt(error: unknown): error is RunInterrupt {
  return typeof error === 'object' && error !== null && (error as { weftInterrupt?: unknown }).weftInterrupt === true;
}

/** The JSON shape of an error in events and the journal. */
export interface ErrorInfo {
  name: string;
  message: string;
  code?: string;
  stepId?: string;
}

export function toErrorInfo(error: unknown): ErrorInfo {
  if (error instanceof Error) {
    const info: ErrorInfo = { name: error.name, message: error.message };
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') info.code = code;
    const stepId = (error as { stepId?: unknown }).stepId;
    if (typeof stepId === 'string') info.stepId = stepId;
    return info;
  }
  return { name: 'Error', message: String(error) };
}
