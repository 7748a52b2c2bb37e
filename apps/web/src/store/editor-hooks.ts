/** Selector hooks over the editor store: components subscribe to exactly what they draw. */
import { useContext } from 'react';
import { useStore } from 'zustand';
import { EditorStoreContext } from './EditorStoreProvider.tsx';
import type { EditorState, EditorStore } from './editor-store.ts';

export function useEditorStoreApi(): EditorStore {
  const store = useContext(EditorStoreContext);
  if (!store) throw new Error('useEditor must be used inside <EditorStoreProvider>');
  return store;
}

export function useEditor<T>(selector: (state: EditorState) => T): T {
  return useStore(useEditorStoreApi(), selector);
}

export const useNodeStatus = (id: string) => useEditor((state) => state.run?.nodes[id]?.status ?? null);
export const useNodeText = (id: string) => useEditor((state) => state.run?.nodes[id]?.text ?? '');
export const useNodeWaiting = (id: string) => useEditor((state) => state.run?.nodes[id]?.waitingStepId ?? null);
export const useNodeProblemCount = (id: string) =>
  useEditor((state) => state.problems.reduce((count, problem) => count + (problem.nodeId === id ? 1 : 0), 0));
export const useIsSelected = (id: string) => useEditor((state) => state.selectedIds.includes(id));
export const useCanUndo = () => useEditor((state) => state.history.past.length > 0);
export const useCanRedo = () => useEditor((state) => state.history.future.length > 0);
export const useHasSelection = () =>
  useEditor((state) => state.selectedIds.length > 0 || state.selectedEdgeIds.length > 0);
