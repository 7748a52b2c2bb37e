/** Selector hooks over the editor store: components subscribe to exactly what they draw. */
import { useContext } from 'react';
import { useStore } from 'zustand';
import { shallow } from 'zustand/shallow';
import { useStoreWithEqualityFn } from 'zustand/traditional';
import type { CompareMark } from './compare-view.ts';
import { EditorStoreContext } from './EditorStoreProvider.tsx';
import type { EditorState, EditorStore } from './editor-store.ts';
import { type NodeRun, runIsActive } from './run-status.ts';

export function useEditorStoreApi(): EditorStore {
  const store = useContext(EditorStoreContext);
  if (!store) throw new Error('useEditor must be used inside <EditorStoreProvider>');
  return store;
}

export function useEditor<T>(selector: (state: EditorState) => T): T {
  return useStore(useEditorStoreApi(), selector);
}

/**
 * A node's run state and compare mark, read as own properties: a step may be called `toString` or
 * `valueOf`, which a plain object (a run's `nodes` before its first snapshot, a map that came
 * through JSON) answers from Object.prototype.
 */
function nodeOf(state: EditorState, id: string): NodeRun | undefined {
  const nodes = state.run?.nodes;
  return nodes && Object.hasOwn(nodes, id) ? nodes[id] : undefined;
}

function markOf(state: EditorState, id: string): CompareMark | null {
  const marks = state.compare?.marks;
  return marks && Object.hasOwn(marks, id) ? (marks[id] ?? null) : null;
}

export const useNodeStatus = (id: string) => useEditor((state) => nodeOf(state, id)?.status ?? null);
export const useNodeText = (id: string) => useEditor((state) => nodeOf(state, id)?.text ?? '');
/** Not reached yet (at the scrubbed moment) while the run could still reach it: drawn dimmed as `queued`. */
export const useNodeQueued = (id: string) =>
  useEditor((state) => state.run !== null && runIsActive(state.run.view.status) && !nodeOf(state, id));
export const useNodeDuration = (id: string) => useEditor((state) => nodeOf(state, id)?.durationMs ?? null);
/** The tool names called so far, newline-joined (a string, so the selector result is stable). */
export const useNodeToolCalls = (id: string) => useEditor((state) => nodeOf(state, id)?.toolCalls.join('\n') ?? '');
export const useNodeWaiting = (id: string) => useEditor((state) => nodeOf(state, id)?.waitingStepId ?? null);
export const useNodeProblemCount = (id: string) =>
  useEditor((state) => state.problems.reduce((count, problem) => count + (problem.nodeId === id ? 1 : 0), 0));
/** Everything a step or container node draws from the store (`status` is `queued` while not reached). */
function nodeLiveOf(state: EditorState, id: string) {
  const node = nodeOf(state, id);
  const queued = state.run !== null && runIsActive(state.run.view.status) && !node;
  let problems = 0;
  for (const problem of state.problems) if (problem.nodeId === id) problems++;
  return {
    status: node?.status ?? (queued ? ('queued' as const) : null),
    durationMs: node?.durationMs ?? null,
    toolCalls: node?.toolCalls.join('\n') ?? '',
    text: node?.text ?? '',
    waiting: node?.waitingStepId ?? null,
    problems,
    reused: node?.reused ?? null,
    mark: markOf(state, id),
    first: state.compare?.firstDivergence === id,
  };
}

export type NodeLive = ReturnType<typeof nodeLiveOf>;

/**
 * A node's live state in one subscription, compared field by field: a node mounts — as a pan
 * brings it into view — with one store hook instead of a dozen.
 */
export const useNodeLive = (id: string): NodeLive =>
  useStoreWithEqualityFn(useEditorStoreApi(), (state) => nodeLiveOf(state, id), shallow);
export const useIsSelected = (id: string) => useEditor((state) => state.selectedIds.includes(id));
export const useCanUndo = () => useEditor((state) => state.history.past.length > 0);
export const useCanRedo = () => useEditor((state) => state.history.future.length > 0);
export const useHasSelection = () =>
  useEditor((state) => state.selectedIds.length > 0 || state.selectedEdgeIds.length > 0);
/** Checkpoints of the node answered from the run's seed: 'all', 'some' or null. */
export const useNodeReused = (id: string) => useEditor((state) => nodeOf(state, id)?.reused ?? null);
/** The node's mark while two runs or versions are compared, and whether it is the first divergence. */
export const useNodeCompare = (id: string) => useEditor((state) => markOf(state, id));
export const useIsFirstDivergence = (id: string) => useEditor((state) => state.compare?.firstDivergence === id);
