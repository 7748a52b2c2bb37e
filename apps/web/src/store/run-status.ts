/**
 * Live run state for the canvas. Events fold with the engine's `applyEvent` (the same reducer
 * the API and the replay scrubber use); here it is made immutable per event so React selectors
 * see a new object exactly where something changed. Run step ids are paths (`agent/llm#3`,
 * `fanout.a/fetch`, `each[2]/summarize`); each is drawn on the graph node of its innermost
 * segment that is a node (so an agent's model turns light up the agent's node).
 */
import { applyEvent, type RunEvent, type RunState, type StepStatus, stepOf } from '@weft/engine';

/** Folds one event without mutating `prev`. Events at or before `prev.seq` are ignored (a resumed stream). */
export function foldEvent(prev: RunState, event: RunEvent): RunState {
  if (event.seq <= prev.seq && event.type !== 'step.delta') return prev;
  // Step and node ids are chosen by flow authors (`toString` is a fine id): maps keyed by them
  // have no prototype, so nothing inherited is ever mistaken for an entry.
  const next: RunState = { ...prev, steps: Object.assign(Object.create(null), prev.steps), order: [...prev.order] };
  if ('stepId' in event) {
    const step = stepOf(next, event.stepId);
    if (step) next.steps[event.stepId] = { ...step };
  }
  return applyEvent(next, event);
}

/**
 * The candidate node ids of a run step id, innermost first. Segments with `#` are an llm's model
 * turns and tool calls (`llm#3`, `tool#1.0`), never nodes: they show on their llm's node.
 */
export function nodeIdsOfStep(stepId: string): readonly string[] {
  // Asked for every step on every scrub of a run of thousands of steps: worth remembering.
  let ids = nodeIdCache.get(stepId);
  if (ids) return ids;
  if (nodeIdCache.size >= NODE_ID_CACHE_SIZE) nodeIdCache.clear();
  ids = parseNodeIds(stepId);
  nodeIdCache.set(stepId, ids);
  return ids;
}

const NODE_ID_CACHE_SIZE = 100_000;
const nodeIdCache = new Map<string, readonly string[]>();

function parseNodeIds(stepId: string): readonly string[] {
  return stepId
    .split('/')
    .filter((segment) => !segment.includes('#'))
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

/** The graph node a run step is drawn on (its innermost segment that is a node), if any. */
export function nodeOfStep(stepId: string, nodeIds: ReadonlySet<string>): string | undefined {
  return nodeIdsOfStep(stepId).find((id) => nodeIds.has(id));
}

/**
 * The run step to inspect when a node is selected: `current` when it is drawn on that node (a
 * turn of the selected agent stays selected), else the node's own step, else its first step
 * (the first item of a map body). Null when the run never reached the node.
 */
export function stepOfNode(
  state: Pick<RunState, 'order' | 'steps'>,
  nodeId: string,
  nodeIds: ReadonlySet<string>,
  current: string | null,
): string | null {
  if (current !== null && nodeOfStep(current, nodeIds) === nodeId) return current;
  if (stepOf(state, nodeId)) return nodeId;
  return state.order.find((stepId) => nodeOfStep(stepId, nodeIds) === nodeId) ?? null;
}

export interface NodeRun {
  status: StepStatus;
  /** Streamed text of this node's steps, in order. */
  text: string;
  /** The run step ids drawn on this node, in start order. */
  stepIds: string[];
  /** The run step id of a pending approval on this node, if any. */
  waitingStepId: string | null;
  /** How long the node's own step took, once it ended. */
  durationMs: number | null;
  /** The tools called by this node's agent turns, in call order. */
  toolCalls: string[];
  /**
   * Whether this node's checkpoints were answered from the run's seed (a replay's source run, a
   * test case) instead of executed: all of them, some (an agent replayed from its third turn), or
   * none.
   */
  reused: 'all' | 'some' | null;
}

/** Step types that are checkpoints a seed can answer: calls and approval decisions. */
const CHECKPOINT_TYPES: ReadonlySet<string> = new Set([
  'model-turn',
  'tool-call',
  'tool',
  'code',
  'http',
  'spawn',
  'approval',
]);

const RANK: Record<StepStatus, number> = { completed: 0, running: 1, retrying: 2, waiting: 3, failed: 4 };

/** Per graph node: its aggregated status, streamed text and step ids. */
export function nodeRunsOf(state: RunState, nodeIds: ReadonlySet<string>): Record<string, NodeRun> {
  const out: Record<string, NodeRun> = Object.create(null);
  const worst: Record<string, StepStatus> = Object.create(null);
  const counts: Record<string, { reused: number; executed: number }> = Object.create(null);
  for (const stepId of state.order) {
    const step = stepOf(state, stepId);
    if (!step) continue;
    const nodeId = nodeIdsOfStep(stepId).find((id) => nodeIds.has(id));
    if (!nodeId) continue;
    let entry = out[nodeId];
    if (!entry) {
      entry = {
        status: step.status,
        text: '',
        stepIds: [],
        waitingStepId: null,
        durationMs: null,
        toolCalls: [],
        reused: null,
      };
      out[nodeId] = entry;
      counts[nodeId] = { reused: 0, executed: 0 };
    }
    const count = counts[nodeId];
    if (count && step.reused) count.reused++;
    else if (count && CHECKPOINT_TYPES.has(step.stepType) && (step.status === 'completed' || step.status === 'failed'))
      count.executed++;
    entry.stepIds.push(stepId);
    if (step.text) entry.text += step.text;
    if (step.status === 'waiting') entry.waitingStepId = stepId;
    if (step.stepType === 'tool-call') entry.toolCalls.push(toolName(step.input) ?? stepId.split('/').at(-1) ?? 'tool');
    const seen = worst[nodeId];
    if (seen === undefined || RANK[step.status] > RANK[seen]) worst[nodeId] = step.status;
  }
  for (const [nodeId, entry] of Object.entries(out)) {
    // The node's own step decides once it has ended; while it runs (or for the iterations of a
    // body step, which have no own step) the busiest of its steps shows.
    const own = stepOf(state, nodeId)?.status;
    entry.status = own !== undefined && own !== 'running' ? own : (worst[nodeId] ?? 'running');
    entry.durationMs = durationOf(state, entry.stepIds, nodeId);
    const count = counts[nodeId];
    if (count && count.reused > 0) entry.reused = count.executed > 0 ? 'some' : 'all';
  }
  return out;
}

function toolName(input: unknown): string | null {
  const tool = (input as { tool?: unknown } | null)?.tool;
  return typeof tool === 'string' ? tool : null;
}

/**
 * The time the node's own steps took once all ended (`parallel.b/code`, or every iteration
 * `each[i]/summarize` of a body step: first start to last end); null while any still runs.
 */
function durationOf(state: RunState, stepIds: readonly string[], nodeId: string): number | null {
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  let count = 0;
  for (const stepId of stepIds) {
    if (nodeIdsOfStep(stepId)[0] !== nodeId || isTurnOrCall(stepId)) continue;
    const step = stepOf(state, stepId);
    if (!step) continue;
    if (step.status !== 'completed' && step.status !== 'failed') return null;
    if (step.startedAt === null || step.endedAt === null) return step.durationMs;
    start = Math.min(start, step.startedAt);
    end = Math.max(end, step.endedAt);
    count++;
  }
  return count > 0 ? Math.max(0, end - start) : null;
}

/** `840 ms`, `2.4 s`, `1 m 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} m ${String(seconds % 60).padStart(2, '0')} s`;
}

/** Whether the run can still reach steps it has not started. */
export function runIsActive(status: RunState['status'] | undefined): boolean {
  return status === 'running' || status === 'waiting';
}

/** A model turn or tool call of an agent (`agent/llm#3`, `agent/tool#1.0`): its last segment has a `#`. */
function isTurnOrCall(stepId: string): boolean {
  return stepId.lastIndexOf('#') > stepId.lastIndexOf('/');
}
