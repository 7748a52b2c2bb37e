/**
 * The editor's state: one store per open flow, made by `createEditorStore` and handed down by
 * `EditorStoreProvider`; components read it through selector hooks (editor-hooks.ts).
 */
import { type FlowGraph, initialRunState, type Json, type RunEvent, type RunState, type StepType } from '@weft/engine';
import { createStore } from 'zustand/vanilla';
import { appendStep, connect, dropStep, moveNodes, removeEdges, removeNodes, setConfig } from '../graph/graph-edit.ts';
import { foldEvent, type NodeRun, nodeRunsOf } from './run-status.ts';

/** A problem shown in the problems panel and as a badge on its node. */
export interface Problem {
  nodeId: string | null;
  message: string;
  source: 'graph' | 'engine' | 'server';
}

export interface LiveRun {
  runId: string;
  state: RunState;
  nodes: Record<string, NodeRun>;
}

export interface EditorState {
  flowId: string;
  /** The saved version the graph came from (bumped on save). */
  version: number | null;
  graph: FlowGraph;
  selectedId: string | null;
  dirty: boolean;
  problems: Problem[];
  run: LiveRun | null;

  select(id: string | null): void;
  appendStep(type: StepType): void;
  dropStep(type: StepType, position: { x: number; y: number }): void;
  connect(source: string, target: string, sourceHandle?: string | null): void;
  removeNodes(ids: readonly string[]): void;
  removeEdges(ids: readonly string[]): void;
  moveNodes(moves: ReadonlyMap<string, { x: number; y: number }>): void;
  setConfig(id: string, config: Record<string, Json>): void;
  setProblems(problems: Problem[]): void;
  markSaved(version: number): void;
  startRun(runId: string): void;
  applyRunEvent(event: RunEvent): void;
  clearRun(): void;
}

export interface EditorInit {
  flowId: string;
  version: number | null;
  graph: FlowGraph;
}

export function createEditorStore(init: EditorInit) {
  return createStore<EditorState>()((set, get) => {
    const edit = (next: FlowGraph, selectedId: string | null = get().selectedId) => {
      if (next !== get().graph) set({ graph: next, dirty: true, selectedId });
    };
    return {
      ...init,
      selectedId: null,
      dirty: false,
      problems: [],
      run: null,

      select: (id) => set({ selectedId: id }),
      appendStep: (type) => {
        const { graph, id } = appendStep(get().graph, type, get().selectedId);
        edit(graph, id);
      },
      dropStep: (type, position) => {
        const { graph, id } = dropStep(get().graph, type, position);
        edit(graph, id);
      },
      connect: (source, target, sourceHandle) => edit(connect(get().graph, source, target, sourceHandle)),
      removeNodes: (ids) => {
        const selected = get().selectedId;
        edit(removeNodes(get().graph, ids), selected && ids.includes(selected) ? null : selected);
      },
      removeEdges: (ids) => edit(removeEdges(get().graph, ids)),
      // Moving is layout, not semantics — but layout is saved too (`ui.positions`), so it dirties.
      moveNodes: (moves) => edit(moveNodes(get().graph, moves)),
      setConfig: (id, config) => edit(setConfig(get().graph, id, config)),
      setProblems: (problems) => set({ problems }),
      markSaved: (version) =>
        set({ version, dirty: false, graph: { ...get().graph, meta: { ...get().graph.meta, version } } }),
      startRun: (runId) => set({ run: { runId, state: initialRunState(), nodes: {} } }),
      applyRunEvent: (event) => {
        const run = get().run;
        if (!run || event.runId !== run.runId) return;
        const state = foldEvent(run.state, event);
        if (state === run.state) return;
        const ids = new Set(get().graph.nodes.map((node) => node.id));
        set({ run: { runId: run.runId, state, nodes: nodeRunsOf(state, ids) } });
      },
      clearRun: () => set({ run: null }),
    };
  });
}

export type EditorStore = ReturnType<typeof createEditorStore>;
