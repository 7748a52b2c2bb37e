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
} from '@xyflow/react';
import { type DragEvent, useCallback, useEffect, useState } from 'react';
import { CompareLegend } from '../compare/CompareLegend.tsx';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import { StepActions } from './canvas/StepActions.tsx';
import { useCanvasShortcuts } from './canvas/use-canvas-shortcuts.ts';
import { toFlowEdges, toFlowNodes, type WeftNode } from './flow-nodes.ts';
import { nodeTypes } from './nodes/node-types.ts';
import './canvas/canvas.css';

export const STEP_DRAG_TYPE = 'application/x-weft-step';
/** A small flow opens at 1×, not blown up to fill the screen. */
const FIT_VIEW = { maxZoom: 1 };
const SNAP_GRID: [number, number] = [10, 10];
const MULTI_SELECT_KEYS = ['Shift', 'Meta', 'Control'];

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
  const [nodes, setNodes] = useState<WeftNode[]>(() => toFlowNodes(graph, selectedIds, []));
  const [edges, setEdges] = useState<Edge[]>(() => toFlowEdges(graph, [], selectedEdgeIds));
  const { screenToFlowPosition } = useReactFlow();
  useCanvasShortcuts(store);

  useEffect(() => setNodes((previous) => toFlowNodes(graph, selectedIds, previous)), [graph, selectedIds]);
  useEffect(() => setEdges((previous) => toFlowEdges(graph, previous, selectedEdgeIds)), [graph, selectedEdgeIds]);

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
    <div className="canvas">
      <ReactFlow<WeftNode>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onDragOver={onDragOver}
        onDrop={onDrop}
        onPaneClick={onPaneClick}
        colorMode={colorMode}
        fitView
        fitViewOptions={FIT_VIEW}
        snapToGrid={snapToGrid}
        snapGrid={SNAP_GRID}
        minZoom={0.05}
        onlyRenderVisibleElements
        deleteKeyCode={null}
        selectionKeyCode="Shift"
        multiSelectionKeyCode={MULTI_SELECT_KEYS}
        selectionMode={SelectionMode.Partial}
        aria-label="Flow canvas"
      >
        <Background gap={20} />
        <MiniMap pannable zoomable ariaLabel="Minimap" />
        <Controls aria-label="Canvas controls" />
        <Panel position="top-left">
          <StepActions />
        </Panel>
        <Panel position="top-right">
          <CompareLegend />
        </Panel>
      </ReactFlow>
    </div>
  );
}
