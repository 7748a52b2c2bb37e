/** What a runner is given and what an execution returns. */
import type { ErrorInfo, Fixtures, interpret, Json, RunStatus } from '@weft/engine';
import type { FlowSource } from '../backends/flow-source.ts';
import type { ExecutorRegistry, HostTool } from '../executors/index.ts';
import type { RunRecord, RunStore } from '../store/types.ts';
import { InputTooLargeError } from './errors.ts';
import type { HandOffStart } from './handoff.ts';
import type { ApprovalDecider } from './host.ts';

export const DEFAULT_MAX_INPUT_BYTES = 1024 * 1024;

export interface RunnerOptions {
  store: RunStore;
  executors: ExecutorRegistry;
  /** Where `spawn` finds flows by id. */
  flows?: FlowSource;
  /** Host-registered tools (also given to the executor registry by the caller). */
  tools?: Record<string, HostTool>;
  /** Asked when an approval is reached; answering undefined parks the run. */
  decide?: ApprovalDecider;
  /** Largest accepted run input, in bytes of JSON. Default: WEFT_MAX_INPUT_BYTES, else 1 MiB. */
  maxInputBytes?: number;
  /**
   * What executes a run's flow over the host (default: the IR interpreter). A code-first flow
   * runs durably by passing `(flow, input, host, options) => runCodeFirst(codeFlowFor(flow), input, host, options)`:
   * the run row still holds the IR document (id, version, input schema), the journal and
   * events are the same.
   */
  interpret?: typeof interpret;
  /**
   * Starts a run that hands off (its `handoff`) on the target engine, seeded with what it did
   * here (inprocess/handoff.ts). Without it, a run that reaches its hand-off point fails.
   */
  handOff?: HandOffStart;
}

export interface StartOptions {
  fixtures?: Fixtures;
  runId?: string;
  /** Decisions for this execution only (the CLI's --approve), by approval step id. */
  decide?: ApprovalDecider;
}

export interface ResumeOptions extends StartOptions {
  /**
   * A flow document to replay this execution with instead of the pinned one (a hot fix). It is
   * validated, must keep the flow id, and must agree with the journal: where it asks for
   * something the journal does not hold, the run fails with a DeterminismError. The run stays
   * pinned to its original flow for later executions.
   */
  flow?: unknown;
}

export interface RunOutcome {
  runId: string;
  /** `running` only when the runner was closed mid-run: the run waits for `recover()`. */
  status: RunStatus;
  output: Json | null;
  error: ErrorInfo | null;
  /** When the run parked: what it waits for. */
  waitingFor: { stepId: string; reason: string }[];
}

export function outcomeOf(run: RunRecord, waitingFor: RunOutcome['waitingFor'] = []): RunOutcome {
  return { runId: run.id, status: run.status, output: run.output, error: run.error, waitingFor };
}

/** Refuses an input larger than the configured limit, WEFT_MAX_INPUT_BYTES, or 1 MiB. */
export function checkInputSize(input: Json, configured: number | undefined): void {
  const limit = configured ?? limitFromEnv() ?? DEFAULT_MAX_INPUT_BYTES;
  const bytes = Buffer.byteLength(JSON.stringify(input) ?? 'null');
  if (bytes > limit) throw new InputTooLargeError(bytes, limit);
}

function limitFromEnv(): number | undefined {
  const text = process.env.WEFT_MAX_INPUT_BYTES;
  if (text === undefined || text.trim() === '') return undefined;
  const limit = Number(text);
  if (!Number.isSafeInteger(limit) || limit <= 0)
    throw new Error(`WEFT_MAX_INPUT_BYTES must be a positive whole number of bytes, not "${text}"`);
  return limit;
}
