/**
 * Undo/redo of graph edits: snapshots of the immutable graph (edits share structure, so a
 * snapshot costs only what changed). Pure, so the store stays small and this is testable.
 */
import type { FlowGraph } from '@weft/engine';

export interface History {
  past: readonly FlowGraph[];
  future: readonly FlowGraph[];
}

export const HISTORY_LIMIT = 200;
export const emptyHistory = (): History => ({ past: [], future: [] });

/** Records `previous` before an edit; a new edit drops the redo stack. */
export function record(history: History, previous: FlowGraph): History {
  const past = [...history.past, previous];
  return { past: past.length > HISTORY_LIMIT ? past.slice(past.length - HISTORY_LIMIT) : past, future: [] };
}

/** The graph to go back to and the new history, or null when there is nothing to undo. */
export function undo(history: History, current: FlowGraph): { graph: FlowGraph; history: History } | null {
  const graph = history.past.at(-1);
  if (!graph) return null;
  return { graph, history: { past: history.past.slice(0, -1), future: [current, ...history.future] } };
}

export function redo(history: History, current: FlowGraph): { graph: FlowGraph; history: History } | null {
  const graph = history.future[0];
  if (!graph) return null;
  return { graph, history: { past: [...history.past, current], future: history.future.slice(1) } };
}
