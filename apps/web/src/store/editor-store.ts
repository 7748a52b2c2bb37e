/**
 * The editor's state: one store per open flow, made by `createEditorStore` and handed down by
 * `EditorStoreProvider`; components read it through selector hooks (editor-hooks.ts).
 */
import {
  type FlowGraph,
  initialRunState,
  type Json,
  joinNodeId,
  mergeNodeId,
  type RunEvent,
  type RunState,
  type StepType,
} from '@weft/engine';
import { createStore } from 'zustand/vanilla';
import {
  type ArmResult,
  addBranchCase,
  addElse,
  addParallelBranch,
  removeBranchCase,
  removeElse,
  removeParallelBranch,
  renameParallelBranch,
} from '../graph/arms.ts';
import { type Clipboard, copyNodes } from '../graph/clipboard.ts';
import { clipboardFromText, clipboardToText } from '../graph/clipboard-ir.ts';
import {
  appendStep,
  connect,
  dropStep,
  insertOnEdge,
  moveNodes,
  removeEdges,
  removeNodes,
  setConfig,
} from '../graph/graph-edit.ts';
import { emptyHistory, type History, record, redo, undo } from '../graph/history.ts';
import { autoLayout, type Size } from '../graph/layout.ts';
import { pasteAfter } from '../graph/paste-after.ts';
import { renameStep } from '../graph/rename.ts';
import type { CompareView } from './compare-view.ts';
import { type NodeRun, nodeOfStep, nodeRunsOf, stepOfNode } from './run-status.ts';
import { RunTape } from './run-tape.ts';

/** A problem shown in the problems panel and as a badge on its node. */
export interface Problem {
  nodeId: string | null;
  message: string;
  source: 'graph' | 'engine' | 'server';
}

export interface LiveRun {
  runId: string;
  /** The run as far as it has been followed: what the run panel, replay and compare read. */
  state: RunState;
  /**
   * The state after the scrubbed event — `state` itself while following the end: what the
   * canvas, the timeline and the step inspector draw.
   */
  view: RunState;
  /** Per graph node, what `view` did there. */
  nodes: Record<string, NodeRun>;
  /** The scrubbed event's index in the loaded events, or null to follow the latest. */
  cursor: number | null;
  /** How many events are loaded (the tape grows; this says when). */
  length: number;
}

export interface EditorState {
  flowId: string;
  /** The saved version the graph came from (bumped on save). */
  version: number | null;
  graph: FlowGraph;
  /** The step the inspector shows: the last one selected (one of `selectedIds`), or none. */
  selectedId: string | null;
  /** Every selected node (shift-click, box select). */
  selectedIds: readonly string[];
  selectedEdgeIds: readonly string[];
  dirty: boolean;
  /** Undo/redo snapshots of `graph`. */
  history: History;
  clipboard: Clipboard | null;
  /** How many times the clipboard was pasted: each paste lands a little further off. */
  pasteCount: number;
  snapToGrid: boolean;
  problems: Problem[];
  run: LiveRun | null;
  /**
   * The run step the step inspector and the timeline show (`agent/llm#2`, `each[3]/pick`, a map
   * item `each[3]`); its node is the selected node.
   */
  selectedStepId: string | null;
  /** Two runs or two flow versions compared on the canvas (marks per node), or none. */
  compare: CompareView | null;

  select(id: string | null): void;
  /** Replaces the selection (xyflow's select changes, select all). */
  setSelection(nodeIds: readonly string[], edgeIds?: readonly string[]): void;
  undo(): void;
  redo(): void;
  copySelection(): boolean;
  cutSelection(): void;
  /** The copied steps as IR JSON for the system clipboard (clipboard-ir.ts), or null. */
  clipboardText(): string | null;
  /** Pastes the copied steps after the one selected step (wired in), else offset and loose. */
  paste(): void;
  /** Pastes steps from the system clipboard's text; returns why it could not, or null. */
  pasteText(text: string): string | null;
  /** Removes the selected nodes and edges as one edit. */
  deleteSelection(): void;
  /** Renames a step; returns an error message, or null on success. */
  renameStep(from: string, to: string): string | null;
  addParallelBranch(id: string, name?: string): string | null;
  renameParallelBranch(id: string, from: string, to: string): string | null;
  removeParallelBranch(id: string, name: string): string | null;
  addBranchCase(id: string): string | null;
  removeBranchCase(id: string, index: number): string | null;
  addElse(id: string): string | null;
  removeElse(id: string): string | null;
  /** elk auto-layout (the engine's layout as fallback), as one undoable edit. */
  autoLayout(sizes?: ReadonlyMap<string, Size>): Promise<void>;
  toggleSnapToGrid(): void;
  /**
   * Palette click: on the one selected edge (when no node is selected) the step is inserted on
   * that edge; otherwise it is added after the selected node.
   */
  appendStep(type: StepType): void;
  /** Inserts a step on an edge (source → new → target); false when the edge is gone. */
  insertOnEdge(type: StepType, edgeId: string): boolean;
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
  /** Appends a batch of the run's events (one update however many arrive together). */
  appendRunEvents(events: readonly RunEvent[]): void;
  /** Moves the scrubber to an event index; null or the last event follows the run again. */
  setCursor(index: number | null): void;
  /** Moves the scrubber to the event with this seq, now or as soon as it has been loaded. */
  scrubToSeq(seq: number): void;
  /** Selects a run step and the node it is drawn on (null: neither). */
  selectRunStep(stepId: string | null): void;
  /** The loaded events of the run on the canvas and the state after any of them. */
  runTape(): RunTape | null;
  clearRun(): void;
  setCompare(view: CompareView | null): void;
}

export interface EditorInit {
  flowId: string;
  version: number | null;
  graph: FlowGraph;
}

export function createEditorStore(init: EditorInit) {
  return createStore<EditorState>()((set, get) => {
    // `dirty` compares with the last saved graph, so undoing back to it is clean again.
    let saved = init.graph;
    // Typing in the inspector is one undo step per burst, not per keystroke.
    let lastKey: string | null = null;
    let lastAt = 0;
    const edit = (next: FlowGraph, selection?: readonly string[], coalesce?: string) => {
      const { graph, history } = get();
      if (next === graph) return;
      const now = Date.now();
      const merge = coalesce !== undefined && coalesce === lastKey && now - lastAt < 1000 && history.past.length > 0;
      lastKey = coalesce ?? null;
      lastAt = now;
      const ids = selection ?? get().selectedIds.filter((id) => next.nodes.some((node) => node.id === id));
      set({
        graph: next,
        dirty: next !== saved,
        history: merge ? { past: history.past, future: [] } : record(history, graph),
        ...selectionOf(ids, get().selectedId),
      });
    };
    /** Pastes after the one selected step (wired in), else offset and loose; selects what was pasted. */
    const pasteIntoGraph = (clipboard: Clipboard, tools: Record<string, Json>) => {
      const { graph, selectedIds, pasteCount } = get();
      const anchor = selectedIds.length === 1 ? (selectedIds[0] ?? null) : null;
      const pasted = pasteAfter(graph, clipboard, anchor, pasteCount, tools);
      set({ pasteCount: pasteCount + 1 });
      edit(pasted.graph, pasted.ids);
    };
    const editArm = (result: ArmResult): string | null => {
      if (!result.ok) return result.error;
      edit(result.graph);
      return null;
    };
    const travel = (step: typeof undo) => {
      lastKey = null;
      const moved = step(get().history, get().graph);
      if (!moved) return;
      const ids = get().selectedIds.filter((id) => moved.graph.nodes.some((node) => node.id === id));
      set({
        graph: moved.graph,
        history: moved.history,
        dirty: moved.graph !== saved,
        ...selectionOf(ids, get().selectedId),
      });
    };
    // The run's events live outside the reactive state (they only grow); `run.length` says when.
    let tape: RunTape | null = null;
    let pendingSeq: number | null = null;
    const nodeIdSet = () => new Set(get().graph.nodes.map((node) => node.id));
    /** The run fields for a new tape length and cursor, recomputing only what moved. */
    const runAt = (run: LiveRun, cursor: number | null, tapeChanged: boolean): LiveRun => {
      if (!tape) return run;
      const last = tape.length - 1;
      const at = cursor === null || cursor >= last ? null : Math.max(-1, cursor);
      const state = tapeChanged ? tape.stateAt(last) : run.state;
      const view = at === null ? state : at === run.cursor ? run.view : tape.stateAt(at);
      const nodes = view === run.view ? run.nodes : nodeRunsOf(view, nodeIdSet());
      return { ...run, state, view, nodes, cursor: at, length: tape.length };
    };
    /** The inspected run step after the node selection became `selectedId`. */
    const stepFor = (selectedId: string | null) => {
      const { run, selectedStepId } = get();
      if (!run || selectedId === null) return { selectedStepId: null };
      return { selectedStepId: stepOfNode(run.state, selectedId, nodeIdSet(), selectedStepId) };
    };
    return {
      ...init,
      selectedId: null,
      selectedIds: [],
      selectedEdgeIds: [],
      dirty: false,
      history: emptyHistory(),
      clipboard: null,
      pasteCount: 0,
      snapToGrid: true,
      problems: [],
      run: null,
      selectedStepId: null,
      compare: null,

      select: (id) =>
        set({ selectedId: id, selectedIds: id === null ? [] : [id], selectedEdgeIds: [], ...stepFor(id) }),
      setSelection: (nodeIds, edgeIds = get().selectedEdgeIds) => {
        const current = get();
        if (sameIds(nodeIds, current.selectedIds) && sameIds(edgeIds, current.selectedEdgeIds)) return;
        const selection = selectionOf(nodeIds, current.selectedId);
        set({ ...selection, selectedEdgeIds: edgeIds, ...stepFor(selection.selectedId) });
      },
      appendStep: (type) => {
        const { selectedIds, selectedEdgeIds } = get();
        const edge = selectedIds.length === 0 && selectedEdgeIds.length === 1 ? selectedEdgeIds[0] : undefined;
        if (edge !== undefined && get().insertOnEdge(type, edge)) return;
        const { graph, id } = appendStep(get().graph, type, get().selectedId);
        edit(graph, [id]);
      },
      insertOnEdge: (type, edgeId) => {
        const done = insertOnEdge(get().graph, type, edgeId);
        if (!done) return false;
        edit(done.graph, [done.id]);
        set({ selectedEdgeIds: [] });
        return true;
      },
      dropStep: (type, position) => {
        const { graph, id } = dropStep(get().graph, type, position);
        edit(graph, [id]);
      },
      connect: (source, target, sourceHandle) => edit(connect(get().graph, source, target, sourceHandle)),
      removeNodes: (ids) => edit(removeNodes(get().graph, ids)),
      removeEdges: (ids) => edit(removeEdges(get().graph, ids)),
      // Moving is layout, not semantics — but layout is saved too (`ui.positions`), so it dirties.
      moveNodes: (moves) => edit(moveNodes(get().graph, moves)),
      setConfig: (id, config) => edit(setConfig(get().graph, id, config), undefined, `config:${id}`),
      undo: () => travel(undo),
      redo: () => travel(redo),
      copySelection: () => {
        const clipboard = copyNodes(get().graph, get().selectedIds);
        if (clipboard) set({ clipboard, pasteCount: 0 });
        return clipboard !== null;
      },
      cutSelection: () => {
        if (get().copySelection()) get().deleteSelection();
      },
      clipboardText: () => {
        const { clipboard, graph } = get();
        return clipboard ? clipboardToText(clipboard, graph.meta) : null;
      },
      paste: () => {
        const { clipboard } = get();
        if (clipboard) pasteIntoGraph(clipboard, {});
      },
      pasteText: (text) => {
        const read = clipboardFromText(text);
        if (!read.ok) return read.error;
        pasteIntoGraph(read.pasted.clipboard, read.pasted.tools);
        return null;
      },
      deleteSelection: () => {
        const { selectedIds, selectedEdgeIds, graph } = get();
        // A box selection selects the edges of the nodes it selects too; removed first, they would
        // leave nothing for removeNodes to re-join the neighbours with. The nodes take them along.
        const going = new Set(selectedIds.flatMap((id) => [id, mergeNodeId(id), joinNodeId(id)]));
        const edgeIds = selectedEdgeIds.filter((id) => {
          const edge = graph.edges.find((candidate) => candidate.id === id);
          return edge !== undefined && !going.has(edge.source) && !going.has(edge.target);
        });
        edit(removeNodes(removeEdges(graph, edgeIds), selectedIds), []);
        set({ selectedEdgeIds: [] });
      },
      renameStep: (from, to) => {
        const result = renameStep(get().graph, from, to);
        if (!result.ok) return result.error;
        const ids = get().selectedIds.map((id) => (id === from ? to : id));
        edit(result.graph, ids);
        if (get().selectedId === from) set({ selectedId: to });
        return null;
      },
      addParallelBranch: (id, name) => editArm(addParallelBranch(get().graph, id, name)),
      renameParallelBranch: (id, from, to) => editArm(renameParallelBranch(get().graph, id, from, to)),
      removeParallelBranch: (id, name) => editArm(removeParallelBranch(get().graph, id, name)),
      addBranchCase: (id) => editArm(addBranchCase(get().graph, id)),
      removeBranchCase: (id, index) => editArm(removeBranchCase(get().graph, id, index)),
      addElse: (id) => editArm(addElse(get().graph, id)),
      removeElse: (id) => editArm(removeElse(get().graph, id)),
      autoLayout: async (sizes) => {
        const before = get().graph;
        const laid = await autoLayout(before, sizes);
        // An edit made while elk ran wins over the layout.
        if (get().graph === before) edit(laid);
      },
      toggleSnapToGrid: () => set({ snapToGrid: !get().snapToGrid }),
      setProblems: (problems) => set({ problems }),
      markSaved: (version) => {
        saved = { ...get().graph, meta: { ...get().graph.meta, version } };
        set({ version, dirty: false, graph: saved });
      },
      // Another run on the canvas: a comparison of the previous one no longer holds.
      startRun: (runId) => {
        tape = new RunTape();
        pendingSeq = null;
        const state = initialRunState();
        set({
          run: { runId, state, view: state, nodes: {}, cursor: null, length: 0 },
          ...(get().compare?.kind === 'runs' ? { compare: null } : {}),
        });
      },
      applyRunEvent: (event) => get().appendRunEvents([event]),
      appendRunEvents: (events) => {
        const run = get().run;
        if (!run || !tape) return;
        if (tape.append(events.filter((event) => event.runId === run.runId)) === 0) return;
        let cursor = run.cursor;
        if (pendingSeq !== null && tape.lastSeq >= pendingSeq) {
          cursor = tape.indexOfSeq(pendingSeq);
          pendingSeq = null;
        }
        set({ run: runAt(run, cursor, true) });
      },
      setCursor: (index) => {
        const run = get().run;
        pendingSeq = null;
        if (!run || !tape) return;
        const next = runAt(run, index, false);
        if (next.cursor !== run.cursor) set({ run: next });
      },
      scrubToSeq: (seq) => {
        if (tape && tape.lastSeq >= seq) get().setCursor(tape.indexOfSeq(seq));
        else pendingSeq = seq;
      },
      selectRunStep: (stepId) => {
        const nodeId = stepId === null ? null : (nodeOfStep(stepId, nodeIdSet()) ?? null);
        set({
          selectedStepId: stepId,
          selectedId: nodeId,
          selectedIds: nodeId === null ? [] : [nodeId],
          selectedEdgeIds: [],
        });
      },
      runTape: () => tape,
      clearRun: () => {
        tape = null;
        pendingSeq = null;
        set({ run: null, selectedStepId: null, ...(get().compare?.kind === 'runs' ? { compare: null } : {}) });
      },
      setCompare: (view) => set({ compare: view }),
    };
  });
}

export type EditorStore = ReturnType<typeof createEditorStore>;

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, index) => id === b[index]);
}

/** The selection fields for `ids`: the inspector keeps its step while it stays selected. */
function selectionOf(ids: readonly string[], current: string | null) {
  const selectedId = current !== null && ids.includes(current) ? current : (ids.at(-1) ?? null);
  return { selectedIds: ids, selectedId };
}
