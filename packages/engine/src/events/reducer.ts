/**
 * The state of a run at event k is a pure fold over events 0..k. The API, the CLI, the live
 * canvas and the replay scrubber all draw this, so they can never disagree.
 */
import type { ErrorInfo } from '../errors.ts';
import type { TokenUsage } from '../interpreter/host.ts';
import { type Json, ownEntry } from '../json.ts';
import type { RunEvent, RunEventInput, RunStatus } from './events.ts';

export type StepStatus = 'running' | 'waiting' | 'retrying' | 'completed' | 'failed';

export interface StepState {
  stepId: string;
  stepType: string;
  parentId: string | null;
  status: StepStatus;
  input: Json;
  output: Json;
  error: ErrorInfo | null;
  /** 1 + the number of retries so far. */
  attempts: number;
  /** Text streamed so far (llm turns). */
  text: string;
  usage: TokenUsage | null;
  startedAt: number | null;
  endedAt: number | null;
  durationMs: number | null;
  approval: {
    prompt: string;
    approved: boolean | null;
    by: string | null;
    comment: string | null;
    timedOut: boolean;
  } | null;
  childRunId: string | null;
  /** Answered from the run's seed (a replay's source run, a test case), not executed. */
  reused: boolean;
}

export interface RunState {
  status: RunStatus;
  flowId: string | null;
  flowVersion: number | null;
  /** The engine the run is on now (after a hand-off, the one it continued on). */
  backend: string | null;
  /** Where the run left the in-process runner for a durable engine, if it did. */
  handoff: { from: string; to: string; checkpoint: string; seq: number } | null;
  /**
   * Set while the engine the run was handed to cannot be reached to start it (the runner keeps
   * trying): which engine, why, and since when.
   */
  waitingForEngine: { engine: string; error: ErrorInfo; since: number | null } | null;
  input: Json;
  output: Json;
  error: ErrorInfo | null;
  startedAt: number | null;
  endedAt: number | null;
  /**
   * Steps by full id, in the order they started. Keys are chosen by flow authors, so this is a
   * null-prototype object: a step id such as `toString` is an entry like any other, never a
   * member inherited from Object.prototype. Read it with `stepOf` (or Object.hasOwn).
   */
  steps: Record<string, StepState>;
  order: string[];
  /** The last sequence number folded in. */
  seq: number;
}

export function initialRunState(): RunState {
  return {
    status: 'running',
    flowId: null,
    flowVersion: null,
    backend: null,
    handoff: null,
    waitingForEngine: null,
    input: null,
    output: null,
    error: null,
    startedAt: null,
    endedAt: null,
    steps: Object.create(null) as Record<string, StepState>,
    order: [],
    seq: 0,
  };
}

/** Folds stored events (or bare inputs, e.g. in tests) into the state of the run. */
export function runState(events: readonly (RunEvent | RunEventInput)[]): RunState {
  let state = initialRunState();
  for (const event of events) state = applyEvent(state, event);
  return state;
}

/** One step of the fold. Mutates and returns `state` (callers that need snapshots clone first). */
export function applyEvent(state: RunState, event: RunEvent | RunEventInput): RunState {
  const at = 'at' in event ? event.at : null;
  if ('seq' in event) state.seq = event.seq;
  switch (event.type) {
    case 'run.started':
      state.flowId = event.flowId;
      state.flowVersion = event.flowVersion;
      state.backend = event.backend;
      state.input = event.input;
      state.startedAt = at;
      break;
    case 'step.started': {
      const step = ensureStep(state, event.stepId, event.stepType, event.parentId ?? null);
      step.status = 'running';
      step.input = event.input ?? null;
      step.startedAt = at;
      break;
    }
    case 'step.delta': {
      const step = ensureStep(state, event.stepId, 'model-turn', null);
      // An attempt that started again (offset back at 0) replaces the text it streamed before.
      step.text = event.offset === undefined ? step.text + event.text : step.text.slice(0, event.offset) + event.text;
      break;
    }
    case 'run.handed-off':
      state.backend = event.to;
      state.handoff = { from: event.from, to: event.to, checkpoint: event.checkpoint, seq: state.seq };
      break;
    case 'run.engine-unreachable':
      state.waitingForEngine = { engine: event.engine, error: event.error, since: at };
      break;
    case 'run.engine-reached':
      state.waitingForEngine = null;
      break;
    case 'step.completed': {
      const step = ensureStep(state, event.stepId, 'unknown', null);
      step.status = 'completed';
      step.output = event.output;
      step.usage = event.usage ?? step.usage;
      step.reused = event.reused === true;
      finish(step, at);
      break;
    }
    case 'step.failed': {
      const step = ensureStep(state, event.stepId, 'unknown', null);
      step.status = 'failed';
      step.error = event.error;
      step.reused = event.reused === true;
      finish(step, at);
      // An approval that fails on its timeout never gets `approval.resolved`: the run waits no more.
      resumeIfNothingWaits(state);
      break;
    }
    case 'step.retrying': {
      const step = ensureStep(state, event.stepId, 'unknown', null);
      step.status = 'retrying';
      step.attempts = event.attempt + 1;
      step.error = event.error;
      step.text = '';
      break;
    }
    case 'approval.requested': {
      const step = ensureStep(state, event.stepId, 'approval', null);
      step.status = 'waiting';
      step.approval = { prompt: event.prompt, approved: null, by: null, comment: null, timedOut: false };
      if (state.status === 'running') state.status = 'waiting';
      break;
    }
    case 'approval.resolved': {
      const step = ensureStep(state, event.stepId, 'approval', null);
      step.status = 'running';
      step.approval = {
        prompt: step.approval?.prompt ?? '',
        approved: event.approved,
        by: event.by,
        comment: event.comment,
        timedOut: event.timedOut,
      };
      resumeIfNothingWaits(state);
      break;
    }
    case 'child.started':
      ensureStep(state, event.stepId, 'spawn', null).childRunId = event.childRunId;
      break;
    case 'run.completed':
      state.waitingForEngine = null;
      state.status = 'completed';
      state.output = event.output;
      state.endedAt = at;
      break;
    case 'run.failed':
      state.waitingForEngine = null;
      state.status = 'failed';
      state.error = event.error;
      state.endedAt = at;
      break;
    case 'run.cancelled':
      state.waitingForEngine = null;
      state.status = 'cancelled';
      state.endedAt = at;
      break;
  }
  return state;
}

/** The state of one step, or undefined; also safe on a state that went through JSON (a plain object). */
export function stepOf(state: Pick<RunState, 'steps'>, stepId: string): StepState | undefined {
  return ownEntry(state.steps, stepId);
}

function ensureStep(state: RunState, stepId: string, stepType: string, parentId: string | null): StepState {
  let step = stepOf(state, stepId);
  if (!step) {
    step = {
      stepId,
      stepType,
      parentId,
      status: 'running',
      input: null,
      output: null,
      error: null,
      attempts: 1,
      text: '',
      usage: null,
      startedAt: null,
      endedAt: null,
      durationMs: null,
      approval: null,
      childRunId: null,
      reused: false,
    };
    state.steps[stepId] = step;
    state.order.push(stepId);
  } else if (step.stepType === 'unknown' && stepType !== 'unknown') {
    step.stepType = stepType;
  }
  return step;
}

function resumeIfNothingWaits(state: RunState): void {
  if (state.status === 'waiting' && !Object.values(state.steps).some((other) => other.status === 'waiting')) {
    state.status = 'running';
  }
}

function finish(step: StepState, at: number | null): void {
  step.endedAt = at;
  step.durationMs = at !== null && step.startedAt !== null ? at - step.startedAt : null;
}
