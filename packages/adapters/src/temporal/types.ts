/** What crosses between the Temporal client, the workflow and the activities: plain JSON only. */

import type { CallPolicy, Fixtures, Flow, Json, RunEventInput, StepCall, ToolSpec } from '@weft/engine';
import type { ChildPlan, ChildRequest, RunEnd } from '../backends/run-rows.ts';
import type { JournalEntry } from '../store/types.ts';

export const WORKFLOW_TYPE = 'weftFlow';
export const APPROVE_SIGNAL = 'approve';
export const DEFAULT_TASK_QUEUE = 'weft';

export interface WeftFlowArgs {
  runId: string;
  /** The IR snapshot the run is pinned to: a changed flow never reaches a run in flight. */
  flow: Flow;
  input: Json;
  fixtures?: Fixtures;
  hostTools?: Record<string, Omit<ToolSpec, 'name'>>;
  /** How many ancestors this run has (spawn nesting). */
  depth?: number;
  parentRunId?: string;
  /** Recorded results answering these calls instead of activities (a replay or a fork). */
  seed?: JournalEntry[];
  /**
   * How the workflow writes events (workflows.ts): set by every start since calls carry them
   * (EventWriter). A history started without it replays as it was recorded: a local activity per
   * write and finishRun as an activity. Part of the start input, so it costs no command.
   */
  writes?: typeof CARRIED_WRITES;
  /**
   * The interpreter's promise turns (engine legacy-turns.ts): set by every start since tool
   * calls lost their async wrappers. A history started without it replays with the turns it was
   * recorded with (`legacyTurns`). Part of the start input, so it costs no command.
   */
  turns?: typeof LEAN_TURNS;
}

export const CARRIED_WRITES = 'carried';
export const LEAN_TURNS = 'lean';

export interface ApproveSignal {
  stepId: string;
  approved: boolean;
  by?: string | null;
  comment?: string | null;
}

/** The activities the workflow calls; implemented by createActivities on the worker. */
export interface WeftActivities {
  /** Writes `events` (emitted before the call, not stored yet), then runs the call. */
  executeCall(
    runId: string,
    stepId: string,
    call: StepCall,
    policy: CallPolicy,
    events?: RunEventInput[],
  ): Promise<Json>;
  reportEvents(runId: string, events: RunEventInput[]): Promise<void>;
  /** Keeps results the workflow got without an activity (a child run's) in Weft's journal. */
  journal(runId: string, entries: JournalEntry[]): Promise<void>;
  /** Resolves a spawned flow and creates the child's run row (idempotent). */
  prepareChild(request: ChildRequest): Promise<ChildPlan>;
  /** Writes the terminal event and the run row's final status, output and error. */
  finishRun(runId: string, end: RunEnd, events: RunEventInput[]): Promise<void>;
}
