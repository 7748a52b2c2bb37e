/**
 * A durable engine outside this process that runs Weft flows (Temporal, Inngest). The API and
 * the CLI steer every such engine through this one interface; the in-process runner is not
 * one of them (it runs here and owns its store writes).
 *
 * The run row is Weft's: `start` records it (backend = name) unless the runner's create has
 * already, and starts the engine's run under the run id with the pinned flow snapshot
 * (Temporal receives it as the workflow's argument; the Inngest function reads it from the
 * row). The engine's side writes events, approvals and the final status into the same store
 * (see store/report-events.ts); only an Inngest cancel is recorded by the backend (`cancel`).
 */
import type { Fixtures, Flow, Json, ToolSpec } from '@weft/engine';

export type ExternalBackendName = 'temporal' | 'inngest';

export interface ExternalRunStart {
  runId: string;
  flow: Flow;
  input: Json;
  fixtures?: Fixtures;
  hostTools?: Record<string, Omit<ToolSpec, 'name'>>;
}

export interface ExternalDecision {
  stepId: string;
  approved: boolean;
  by: string | null;
  comment: string | null;
}

export interface ExternalBackend {
  readonly name: ExternalBackendName;
  /**
   * Records the run in the store (when it is not there yet) and starts it on the engine. Call
   * it once per run: Inngest drops a second start of a run id, but Temporal refuses one while
   * the workflow is open and would run a closed one again.
   */
  start(run: ExternalRunStart): Promise<void>;
  /** Delivers a decision already recorded in the store to the waiting run. */
  decide(runId: string, decision: ExternalDecision): Promise<void>;
  /**
   * Cancels the run on the engine, and `run.cancelled` with the cancelled status is recorded:
   * on Temporal by the workflow's own cleanup; on Inngest by this call, for the run and each
   * unfinished child run (Inngest stops a cancelled function without running any of its code).
   */
  cancel(runId: string): Promise<void>;
  /** Where the engine's own UI shows this run, when one is configured. */
  link(runId: string): string | undefined;
  close(): Promise<void>;
}
