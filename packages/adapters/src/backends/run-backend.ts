/**
 * The one interface every engine that executes Weft runs implements: the embedded in-process
 * runner, Temporal and Inngest alike. `RunService` (../service/) is its only caller in the
 * product: it validates and records the run row first, then hands the run over here.
 *
 * | method  | in-process                          | Temporal                          | Inngest                               |
 * |---------|-------------------------------------|-----------------------------------|---------------------------------------|
 * | start   | journal the seed, execute in the background | start the workflow (run id = workflow id) | send the run event (event id = run id) |
 * | decide  | resume by replay                    | signal the workflow               | send the decision event (re-sent until taken) |
 * | cancel  | abort here or mark in the store     | cancel the workflow (its cleanup records it) | send the cancel event and record it |
 * | resume  | execute again from the journal      | nothing: Temporal resumes by itself | send undelivered decisions again    |
 *
 * The engine's side writes events, approvals and the final status into the same store
 * (in-process through its group committer, Temporal and Inngest through store/report-events.ts).
 */
import type { Fixtures, Flow, Json } from '@weft/engine';
import type { JournalEntry } from '../store/types.ts';

export const BACKEND_NAMES = ['inprocess', 'temporal', 'inngest'] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];
/** The engines outside this process, configured by settings (TEMPORAL_ADDRESS, INNGEST_*). */
export type ExternalBackendName = Exclude<BackendName, 'inprocess'>;

export function isBackendName(name: string): name is BackendName {
  return (BACKEND_NAMES as readonly string[]).includes(name);
}

/** A recorded run, handed to its backend. */
export interface RunHandOver {
  runId: string;
  /** The pinned snapshot the run row holds. */
  flow: Flow;
  input: Json;
  fixtures?: Fixtures;
  /**
   * Results to answer checkpointed calls with instead of executing them (a replay or a fork
   * from a past run's journal, a test case): a call whose id is here and whose input hash matches
   * is neither executed nor paid for; any other call runs live (backends/seed.ts). Already
   * written to the run's journal in the store, under the seed's own ids, when `start` is called.
   */
  seed?: readonly JournalEntry[];
}

/** A decision already recorded in the store, for the waiting run. */
export interface RunDecision {
  stepId: string;
  approved: boolean;
  by: string | null;
  comment: string | null;
}

export interface RunBackend {
  readonly name: BackendName;
  /**
   * Starts executing a recorded run. Keyed by the run id on the external engines: Inngest drops
   * a second start (event id), Temporal ignores one (workflow id, closed ids not reused), so a
   * hand-off repeated after a crash starts nothing twice. Resolves once the engine has accepted
   * the run, not when it ends.
   */
  start(run: RunHandOver): Promise<void>;
  /** Delivers a decision already recorded in the store to the waiting run. */
  decide(runId: string, decision: RunDecision): Promise<void>;
  /**
   * Cancels the run and its unfinished child runs; `run.cancelled` with the cancelled status
   * is recorded (on Temporal by the workflow's own cleanup, once a worker runs it).
   */
  cancel(runId: string): Promise<void>;
  /** Continues a run that has not ended: after a crash, a restart or a missed wake-up. */
  resume(runId: string): Promise<void>;
  /** Where the engine's own UI shows this run, when one is configured. */
  link(runId: string): string | undefined;
  close(): Promise<void>;
}
