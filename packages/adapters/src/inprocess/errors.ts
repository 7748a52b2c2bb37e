/** The runner's own named errors (the engine's cover flows and steps). */

export class RunBusyError extends Error {
  constructor(runId: string, owner: string | null) {
    super(`run ${runId} is being executed by ${owner ?? 'another process'}; try again when its lease ends`);
    this.name = 'RunBusyError';
  }
}

export class InputTooLargeError extends Error {
  constructor(bytes: number, limit: number) {
    super(`run input is ${bytes} bytes; the limit is ${limit} (set WEFT_MAX_INPUT_BYTES to change it)`);
    this.name = 'InputTooLargeError';
  }
}

export class UnknownRunError extends Error {
  constructor(runId: string) {
    super(`unknown run ${runId}`);
    this.name = 'UnknownRunError';
  }
}

/**
 * The reason an execution is aborted when its runner closes. Unlike a cancellation it leaves
 * the run as it is (`running`, no owner), so the next process's `recover()` continues it.
 */
export class RunnerClosedError extends Error {
  constructor() {
    super('the runner was closed; the run continues when a runner recovers it');
    this.name = 'RunnerClosedError';
  }
}

/** The run input does not fit the flow's `input` JSON Schema; `issues` name each field. */
export class InputInvalidError extends Error {
  readonly issues: readonly { path: string; message: string }[];
  constructor(issues: readonly { path: string; message: string }[]) {
    super(`run input is invalid: ${issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`);
    this.name = 'InputInvalidError';
    this.issues = issues;
  }
}
