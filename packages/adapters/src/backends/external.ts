/**
 * A durable engine outside this process that runs Weft flows (Temporal, Inngest). The API and
 * the CLI steer every such engine through this one interface; the in-process runner is not
 * one of them (it runs here and owns its store writes).
 *
 * The run row is Weft's: `start` records it (backend = name) and hands the pinned flow
 * snapshot to the engine under the run id; the engine's side writes events, approvals and the
 * final status into the same store (see store/report-events.ts).
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
  /** Records the run in the store and starts it on the engine; a duplicate start is a no-op. */
  start(run: ExternalRunStart): Promise<void>;
  /** Delivers a decision already recorded in the store to the waiting run. */
  decide(runId: string, decision: ExternalDecision): Promise<void>;
  /** Asks the engine to cancel the run; the run's own cleanup records `run.cancelled`. */
  cancel(runId: string): Promise<void>;
  /** Where the engine's own UI shows this run, when one is configured. */
  link(runId: string): string | undefined;
  close(): Promise<void>;
}
