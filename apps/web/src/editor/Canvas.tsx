/**
 * The canvas: the store's graph drawn with @xyflow/react. Node and edge arrays live here (xyflow
 * writes measured sizes and drag positions into them); the graph in the store is the truth,
 * and a drag is committed to it when it ends. Selection (click, shift-click, shift-drag box)
 * is mirrored into the store, which owns delete/copy/paste/undo (see canvas/use-canvas-shortcuts).
 */

import type { StepType } from '@weft/engine';
import {
  applyEdgeChanges,
  applyNodeChanges,
  Background,
  type ColorMode,
  type Connection,
  Controls,
  type Edge,
  type EdgeChange,
  MiniMap,
  type NodeChange,
  Panel,
  ReactFlow,
  SelectionMode,
  useReactFlow,
  useStore,
  type Viewport,
} from '@xyflow/react';
import { type DragEvent, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { CompareLegend } from '../compare/CompareLegend.tsx';
import { useAfterFirstPaint } from '../components/after-first-paint.ts';
import { MAX_ZOOM, MIN_ZOOM } from '../components/route.ts';
import { foldGraph } from '../graph/fold.ts';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import { type Collapse, CollapseContext } from './canvas/collapse.ts';
import { FarContext } from './canvas/far.ts';
import { MinimapNodes, NoMinimapNode } from './canvas/MinimapNodes.tsx';
import { StepActions } from './canvas/StepActions.tsx';
import { estimatedFitView } from './canvas/start-view.ts';
import { useCanvasShortcuts } from './canvas/use-canvas-shortcuts.ts';
import { useViewportMemory } from './canvas/use-viewport-memory.ts';
import { toFlowEdges, toFlowNodes, type WeftNode } from './flow-nodes.ts';
import { nodeTypes } from './nodes/node-types.ts';
import './canvas/canvas.css';

export const STEP_DRAG_TYPE = 'application/x-weft-step';
/** A small flow opens at 1×, not blown up to fill the screen. */
const FIT_VIEW = { maxZoom: 1 };
const SNAP_GRID: [number, number] = [10, 10];
const MULTI_SELECT_KEYS = ['Shift', 'Meta', 'Control'];
/**
 * Below this zoom nodes are drawn as plain boxes (canvas.css, `.canvas.far`): their 11–12 px text
 * would be under 5 px on screen, unreadable, and painting it for every node on screen is what a
 * pan spends its frames on (a 100-step flow fitted at 0.35 panned at 0.87× the bare canvas's fps
 * with its text drawn: bench/editor.ts).
 */
const FAR_ZOOM = 0.4;

const NO_COLLAPSED: ReadonlySet<string> = new Set();

/** Whether `inputs` are what `last` holds (by identity); if not, `last` takes them. */
function sameInputs(last: { current: unknown[] }, inputs: unknown[]): boolean {
  if (inputs.every((input, i) => input === last.current[i])) return true;
  last.current = inputs;
  return false;
}

/** The selection after xyflow's select changes. */
function nextSelection(current: readonly string[], changes: readonly { id: string; selected: boolean }[]): string[] {
  const ids = new Set(current);
  for (const change of changes) {
    if (change.selected) {
      ids.delete(change.id);
      ids.add(change.id);
    } else ids.delete(change.id);
  }
  return [...ids];
}

/** The id of the edge drawn under a screen point, if any (its wide interaction path counts). */
function edgeAt(x: number, y: number): string | null {
  for (const element of document.elementsFromPoint(x, y)) {
    const edge = element.closest('.react-flow__edge');
    if (edge) return edge.getAttribute('data-id');
    if (element.closest('.react-flow__node')) return null;
  }
  return null;
}

export function Canvas({ colorMode }: { colorMode: ColorMode }) {
  const store = useEditorStoreApi();
  const graph = useEditor((state) => state.graph);
  const selectedIds = useEditor((state) => state.selectedIds);
  const selectedEdgeIds = useEditor((state) => state.selectedEdgeIds);
  const snapToGrid = useEditor((state) => state.snapToGrid);
  const flowId = useEditor((state) => state.flowId);
  const viewport = useViewportMemory(flowId);
  // Fitted: start at an estimate of the fitted view (canvas/start-view.ts), not at 1×. It needs
  // the canvas's size, so the flow is drawn once that is known (before the first paint).
  const box = useRef<HTMLDivElement>(null);
  const [startView, setStartView] = useState<Viewport | undefined>(viewport.start);
  useLayoutEffect(() => {
    if (startView || !box.current) return;
    const { width, height } = box.current.getBoundingClientRect();
    setStartView(estimatedFitView(graph, width, height, MIN_ZOOM, FIT_VIEW.maxZoom));
  }, [startView, graph]);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(NO_COLLAPSED);
  const collapse = useMemo<Collapse>(
    () => ({
      collapsed,
      toggle: (id) =>
        setCollapsed((current) => {
          const next = new Set(current);
          if (!next.delete(id)) next.add(id);
          return next;
        }),
    }),
    [collapsed],
  );
  const [nodes, setNodes] = useState<WeftNode[]>(() => toFlowNodes(graph, selectedIds, [], NO_COLLAPSED));
  const [edges, setEdges] = useState<Edge[]>(() => toFlowEdges(graph, [], selectedEdgeIds));
  const { screenToFlowPosition, fitView } = useReactFlow();
  // Fit-to-view on open is done after the first paint, not by xyflow inside the first
  // measurement, where it holds the first frame back: the canvas opens at the estimate
  // (start-view.ts), and the fit corrects it for nodes measured bigger than their default size.
  const painted = useAfterFirstPaint();
  const fitOnOpen = viewport.start === undefined;
  useEffect(() => {
    if (painted && fitOnOpen) void fitView(FIT_VIEW);
  }, [painted, fitOnOpen, fitView]);
  // A boolean: the canvas re-renders when the zoom crosses the line, not on every zoom step.
  // Until xyflow's zoom pane has set the start view (an effect after the first render) its
  // transform is 1×: the start view's zoom decides the first render.
  const far = useStore((state) => (state.panZoom ? state.transform[2] : (startView?.zoom ?? 1)) < FAR_ZOOM);
  // Far out, edges go without their arm labels (hidden there anyway): a label measures itself
  // (getBBox) each time its edge is drawn, and panning a large flow draws edges in and out.
  const drawnEdges = useMemo(
    () => (far ? edges.map((edge) => (edge.label === undefined ? edge : { ...edge, label: undefined })) : edges),
    [far, edges],
  );
  useCanvasShortcuts(store);

  // What the arrays were last built from: rebuilt when that changes, not again on mount, where a
  // second pass would hand xyflow new arrays of thousands of nodes to index for nothing.
  const nodesFrom = useRef<unknown[]>([graph, selectedIds, NO_COLLAPSED]);
  const edgesFrom = useRef<unknown[]>([graph, selectedEdgeIds, NO_COLLAPSED]);
  useEffect(() => {
    if (sameInputs(nodesFrom, [graph, selectedIds, collapsed])) return;
    setNodes((previous) => toFlowNodes(graph, selectedIds, previous, collapsed));
  }, [graph, selectedIds, collapsed]);
  useEffect(() => {
    if (sameInputs(edgesFrom, [graph, selectedEdgeIds, collapsed])) return;
    const { hidden, bridges } = foldGraph(graph, collapsed);
    setEdges((previous) => toFlowEdges(graph, previous, selectedEdgeIds, hidden, bridges));
  }, [graph, selectedEdgeIds, collapsed]);

  const onNodesChange = useCallback(
    (changes: NodeChange<WeftNode>[]) => {
      setNodes((current) => applyNodeChanges(changes, current));
      const moved = new Map<string, { x: number; y: number }>();
      const selects: { id: string; selected: boolean }[] = [];
      for (const change of changes) {
        if (change.type === 'position' && change.dragging === false && change.position)
          moved.set(change.id, change.position);
        else if (change.type === 'select') selects.push(change);
      }
      // Removal goes through the store (deleteSelection), so it is one undoable edit.
      if (moved.size > 0) store.getState().moveNodes(moved);
      if (selects.length > 0) {
        const state = store.getState();
        state.setSelection(nextSelection(state.selectedIds, selects));
      }
    },
    [store],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      setEdges((current) => applyEdgeChanges(changes, current));
      const selects = changes.flatMap((change) => (change.type === 'select' ? [change] : []));
      if (selects.length > 0) {
        const state = store.getState();
        state.setSelection(state.selectedIds, nextSelection(state.selectedEdgeIds, selects));
      }
    },
    [store],
  );

  const onConnect = useCallback(
    (connection: Connection) => store.getState().connect(connection.source, connection.target, connection.sourceHandle),
    [store],
  );

  const onDragOver = useCallback((event: DragEvent) => {
    if (!event.dataTransfer.types.includes(STEP_DRAG_TYPE)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  }, []);

  const onDrop = useCallback(
    (event: DragEvent) => {
      const type = event.dataTransfer.getData(STEP_DRAG_TYPE) as StepType;
      if (!type) return;
      event.preventDefault();
      // Dropped on an edge: inserted on it (source → new → target); elsewhere: a loose step.
      const edgeId = edgeAt(event.clientX, event.clientY);
      if (edgeId && store.getState().insertOnEdge(type, edgeId)) return;
      store.getState().dropStep(type, screenToFlowPosition({ x: event.clientX, y: event.clientY }));
    },
    [store, screenToFlowPosition],
  );

  const onPaneClick = useCallback(() => store.getState().select(null), [store]);

  return (
    <div ref={box} className={far ? 'canvas far' : 'canvas'}>
      {startView === undefined ? null : (
        <FarContext value={far}>
          <CollapseContext value={collapse}>
            <ReactFlow<WeftNode>
              nodes={nodes}
              edges={drawnEdges}
              nodeTypes={nodeTypes}
              onNodesChange={onNodesChange}
              onEdgesChange={onEdgesChange}
              onConnect={onConnect}
              onDragOver={onDragOver}
              onDrop={onDrop}
              onPaneClick={onPaneClick}
              colorMode={colorMode}
              fitViewOptions={FIT_VIEW}
              defaultViewport={startView}
              onMoveEnd={viewport.onMoveEnd}
              snapToGrid={snapToGrid}
              snapGrid={SNAP_GRID}
              // Low enough that fit-to-view shows the whole of a 2,000-step flow (laid out in columns).
              minZoom={MIN_ZOOM}
              maxZoom={MAX_ZOOM}
              onlyRenderVisibleElements
              deleteKeyCode={null}
              selectionKeyCode="Shift"
              multiSelectionKeyCode={MULTI_SELECT_KEYS}
              selectionMode={SelectionMode.Partial}
              aria-label="Flow canvas"
            >
              <Background gap={20} />
              <MinimapNodes />
              <MiniMap pannable zoomable ariaLabel="Minimap" className="wf-minimap" nodeComponent={NoMinimapNode} />
              <Controls aria-label="Canvas controls" />
              <Panel position="top-left">
                <StepActions />
              </Panel>
              <Panel position="top-right">
                <CompareLegend />
              </Panel>
            </ReactFlow>
          </CollapseContext>
        </FarContext>
      )}
    </div>
  );
}
