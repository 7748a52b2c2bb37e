/**
 * The bare canvas bench/editor.ts measures Weft's editor against: React Flow with plain nodes
 * (its default node types, no store, no custom components) and the same Background, Controls
 * and MiniMap, drawing the same flow at the same positions as the editor (the editor's own
 * `drawFlow` lays it out). It gets the canvas options that decide what is drawn the same as the
 * editor (`onlyRenderVisibleElements`, zoom range), so a ratio is Weft's own cost.
 *
 * `?flow=<url of a flow document>&view=<x>,<y>,<zoom>&pane=<width>x<height>`: without `view`,
 * fitted; `pane` sizes the canvas as the editor's is (the window less the editor's toolbar and
 * side panels), so both draw the same area and cull the same nodes while panning. Plain JS
 * (no JSX, no types): bench/editor.ts builds it with the editor's Vite, no config.
 */
import { Background, Controls, MiniMap, ReactFlow } from '@xyflow/react';
import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import '@xyflow/react/dist/style.css';
import { drawFlow } from '../../apps/web/src/graph/layout.ts';

const params = new URLSearchParams(location.search);

function plainNodes(graph) {
  return graph.nodes.map((node) => ({
    id: node.id,
    type: node.kind === 'start' ? 'input' : node.kind === 'end' ? 'output' : 'default',
    position: node.position,
    data: { label: node.id },
    ...(node.parentId ? { parentId: node.parentId, extent: 'parent' } : {}),
    style: node.size ? { width: node.size.width, height: node.size.height } : { width: 180 },
  }));
}

function plainEdges(graph) {
  // A default node has one source handle: arms leave from it (no named handles).
  return graph.edges.map((edge) => ({ id: edge.id, source: edge.source, target: edge.target }));
}

function viewOf(value) {
  const [x, y, zoom] = (value ?? '').split(',').map(Number);
  return [x, y, zoom].every(Number.isFinite) && zoom > 0 ? { x, y, zoom } : null;
}

const doc = await (await fetch(params.get('flow'))).json();
const graph = drawFlow(doc);
const view = viewOf(params.get('view'));
const [paneWidth, paneHeight] = (params.get('pane') ?? '').split('x').map(Number);
if (paneWidth > 0 && paneHeight > 0) {
  const root = document.getElementById('root');
  root.style.width = `${paneWidth}px`;
  root.style.height = `${paneHeight}px`;
}

createRoot(document.getElementById('root')).render(
  h(
    ReactFlow,
    {
      defaultNodes: plainNodes(graph),
      defaultEdges: plainEdges(graph),
      fitView: view === null,
      fitViewOptions: { maxZoom: 1 },
      ...(view ? { defaultViewport: view } : {}),
      minZoom: 0.01,
      maxZoom: 4,
      onlyRenderVisibleElements: true,
    },
    h(Background, { gap: 20 }),
    h(MiniMap, { pannable: true, zoomable: true }),
    h(Controls),
  ),
);
