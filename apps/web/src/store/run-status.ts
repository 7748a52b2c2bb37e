/**
 * Live run state for the canvas. Events fold with the engine's `applyEvent` (the same reducer
 * the API and the replay scrubber use); here it is made immutable per event so React selectors
 * see a new object exactly where something changed. Run step ids are paths (`agent/llm#3`,
 * `fanout.a/fetch`, `each[2]/summarize`); each is drawn on the graph node of its innermost
 * segment that is a node (so an agent's model turns light up the agent's node).
 */
import { applyEvent, type RunEvent, type RunState, type StepStatus } from '@weft/engine';

/** Folds one event without mutating `prev`. Events at or before `prev.seq` are ignored (a resumed stream). */
export function foldEvent(prev: RunState, event: RunEvent): RunState {
  if (event.seq <= prev.seq && event.type !== 'step.delta') return prev;
  const next: RunState = { ...prev, steps: { ...prev.steps }, order: [...prev.order] };
  if ('stepId' in event) {
    const step = next.steps[event.stepId];
    if (step) next.steps[event.stepId] = { ...step };
  }
  return applyEvent(next, event);
}

/** The candidate node ids of a run step id, innermost first. */
export function nodeIdsOfStep(stepId: string): string[] {
  return stepId
    .split('/')
    .map(
      (segment) =>
        segment
          .replace(/#.*$/, '')
          .replace(/\[\d+\]$/, '')
          .split('.')[0] ?? '',
    )
    .filter((segment) => segment !== '')
    .reverse();
}

export interface NodeRun {
  status: StepStatus;
  /** Streamed text of this node's steps, in order. */
  text: string;
  /** The run step ids drawn on this node, in start order. */
  stepIds: string[];
  /** The run step id of a pending approval on this node, if any. */
  waitingStepId: string | null;
}

const RANK: Record<StepStatus, number> = { completed: 0, running: 1, retrying: 2, waiting: 3, failed: 4 };

/** Per graph node: its aggregated status, streamed text and step ids. */
export function nodeRunsOf(state: RunState, nodeIds: ReadonlySet<string>): Record<string, NodeRun> {
  const out: Record<string, NodeRun> = {};
  const worst: Record<string, StepStatus> = {};
  for (const stepId of state.order) {
    const step = state.steps[stepId];
    if (!step) continue;
    const nodeId = nodeIdsOfStep(stepId).find((id) => nodeIds.has(id));
    if (!nodeId) continue;
    let entry = out[nodeId];
    if (!entry) {
      entry = { status: step.status, text: '', stepIds: [], waitingStepId: null };
      out[nodeId] = entry;
    }
    entry.stepIds.push(stepId);
    if (step.text) entry.text += step.text;
    if (step.status === 'waiting') entry.waitingStepId = stepId;
    const seen = worst[nodeId];
    if (seen === undefined || RANK[step.status] > RANK[seen]) worst[nodeId] = step.status;
  }
  for (const [nodeId, entry] of Object.entries(out)) {
    // The node's own step decides once it has ended; while it runs (or for the iterations of a
    // body step, which have no own step) the busiest of its steps shows.
    const own = state.steps[nodeId]?.status;
    entry.status = own !== undefined && own !== 'running' ? own : (worst[nodeId] ?? 'running');
  }
  return out;
}
