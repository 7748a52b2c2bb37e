/**
 * What a command does with runs, written once for both places runs live: here (the run
 * service of this process's runtime, over the local store: local-access.ts) or on a running
 * `weft serve` (its run service over tRPC: remote-access.ts). Each command parses its
 * arguments, opens a RunAccess and takes one path through it.
 */
import type { ExternalBackendName } from '@weft/adapters/backends';
import type { ReplayPreview, ReplayRequest } from '@weft/adapters/service';
import type { Fixtures, Json, RunState } from '@weft/engine';
import type { CliDecider } from './approvals.ts';
import type { CliEnv } from './context.ts';
import { openLocalAccess } from './local-access.ts';
import { CliError } from './output.ts';
import { openRemoteAccess } from './remote-access.ts';

export interface StartRequest {
  /** The flow document, and the file it came from (for messages). */
  doc: unknown;
  file: string;
  input: Json;
  fixtures?: Fixtures;
  backend: string;
  /** `--handoff`: start in-process, continue on `to` at `at`. */
  handoff?: { to: ExternalBackendName; at: string };
}

/** A run tree to follow after a decision or a resume: its root and where each run stood. */
export interface Steered {
  rootRunId: string;
  after: ReadonlyMap<string, number>;
  /** The run this command asked to execute (a live process holding it is reported). */
  targetRunId?: string;
}

export interface FollowOptions {
  json: boolean;
  /** Answers approvals nobody decided inline (presets, the terminal). */
  decider?: CliDecider;
  after?: ReadonlyMap<string, number>;
  targetRunId?: string;
  /** More fields for the `--json` line. */
  extra?: Record<string, Json>;
}

export interface RunAccess {
  /** Validates, records and starts a run; RunRefused when it cannot start. */
  start(request: StartRequest): Promise<string>;
  /**
   * Decides an approval of the run (or of one of its child runs) and says what to follow, or
   * returns the exit code when there is nothing to continue (decided already, run ended).
   */
  approve(runId: string, stepId: string, decision: Decision): Promise<Steered | number>;
  resume(runId: string): Promise<Steered>;
  /** Cancels the run and its children, says so, and returns the exit code. */
  cancel(runId: string): Promise<number>;
  previewReplay(runId: string, request: ReplayRequest): Promise<ReplayPreview>;
  replay(runId: string, request: ReplayRequest): Promise<{ runId: string } & ReplayPreview>;
  /** A run and the state its events fold to (for comparing runs). */
  state(
    runId: string,
  ): Promise<{ run: { id: string; flowId: string; flowVersion: number; status: string }; state: RunState }>;
  /** Follows the run tree to its end or until it parks, with progress; prints the summary; the exit code. */
  follow(rootRunId: string, options: FollowOptions): Promise<number>;
  close(): Promise<void>;
}

export interface Decision {
  approved: boolean;
  /** Who decides (default: the OS user here, the caller's name there). */
  by: string | undefined;
  comment: string | undefined;
}

/** A run that could not start; `issues` name each field for the `--json` line. */
export class RunRefused extends CliError {
  readonly issues: readonly unknown[];
  /** The message for the `--json` line (the terminal gets the formatted one). */
  readonly detail: string;
  /** False when the run was recorded and then refused by its backend (it exists, ended failed). */
  readonly invalid: boolean;
  constructor(message: string, options: { issues?: readonly unknown[]; detail?: string; invalid?: boolean } = {}) {
    super(message);
    this.issues = options.issues ?? [];
    this.detail = options.detail ?? message;
    this.invalid = options.invalid ?? true;
  }
}

export interface AccessOptions {
  /** A `weft serve` URL (`--server` / WEFT_SERVER); undefined: this machine's store. */
  server: string | undefined;
  env: CliEnv;
  /** Where `spawn` finds flows (`--flows`); default: the folder the run was started with. */
  flowsDir?: string | undefined;
  /** Asked inline when an in-process run here reaches an approval. */
  decider?: CliDecider;
}

export function openRunAccess(options: AccessOptions): Promise<RunAccess> {
  return options.server
    ? Promise.resolve(openRemoteAccess(options.server, options.flowsDir))
    : openLocalAccess(options);
}
