/**
 * The canvas: the store's graph drawn with @xyflow/react. Node and edge arrays live here (xyflow
 * writes measured sizes and drag positions into them); the graph in the store is the truth,
 * and a drag is committed to it when it ends.
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
  ReactFlow,
  useReactFlow,
} from '@xyflow/react';
import { type DragEvent, useCallback, useEffect, useState } from 'react';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import { toFlowEdges, toFlowNodes, type WeftNode } from './flow-nodes.ts';
import { nodeTypes } from './nodes/node-types.ts';

export const STEP_DRAG_TYPE = 'application/x-weft-step';
/** A small flow opens at 1×, not blown up to fill the screen. */
const FIT_VIEW = { maxZoom: 1 };

export function Canvas({ colorMode }: { colorMode: ColorMode }) {
  const store = useEditorStoreApi();
  const graph = useEditor((state) => state.graph);
  const selectedId = useEditor((state) => state.selectedId);
  const [nodes, setNodes] = useState<WeftNode[]>(() => toFlowNodes(graph, selectedId, []));
  const [edges, setEdges] = useState<Edge[]>(() => toFlowEdges(graph, []));
  const { screenToFlowPosition } = useReactFlow();

  useEffect(() => setNodes((previous) => toFlowNodes(graph, selectedId, previous)), [graph, selectedId]);
  useEffect(() => setEdges((previous) => toFlowEdges(graph, previous)), [graph]);

  const onNodesChange = useCallback(
    (changes: NodeChange<WeftNode>[]) => {
      setNodes((current) => applyNodeChanges(changes, current));
      const moved = new Map<string, { x: number; y: number }>();
      const removed: string[] = [];
      for (const change of changes) {
        if (change.type === 'position' && change.dragging === false && change.position)
          moved.set(change.id, change.position);
        else if (change.type === 'select' && change.selected) store.getState().select(change.id);
        else if (change.type === 'remove') removed.push(change.id);
      }
      if (moved.size > 0) store.getState().moveNodes(moved);
      if (removed.length > 0) store.getState().removeNodes(removed);
    },
    [store],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      setEdges((current) => applyEdgeChanges(changes, current));
      const removed = changes.flatMap((change) => (change.type === 'remove' ? [change.id] : []));
      if (removed.length > 0) store.getState().removeEdges(removed);
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
      store.getState().dropStep(type, screenToFlowPosition({ x: event.clientX, y: event.clientY }));
    },
    [store, screenToFlowPosition],
  );

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
        onPaneClick={() => store.getState().select(null)}
        colorMode={colorMode}
        fitView
        fitViewOptions={FIT_VIEW}
        snapToGrid
        snapGrid={[10, 10]}
        minZoom={0.05}
        onlyRenderVisibleElements
        deleteKeyCode={['Backspace', 'Delete']}
        aria-label="Flow canvas"
      >
        <Background gap={20} />
        <MiniMap pannable zoomable ariaLabel="Minimap" />
        <Controls aria-label="Canvas controls" />
      </ReactFlow>
    </div>
  );
}
