/**
 * The minimap's nodes, drawn as one path in a layer of their own under xyflow's `MiniMap`, which
 * then draws only the mask around the view (and keeps its pan and zoom by drag and wheel).
 *
 * Why: xyflow's minimap draws its nodes and the mask in one SVG, and the mask changes with every
 * frame of a pan, so every frame re-rasterized every node's rect in it. At 2,000 steps that held
 * a pan at zoom 1 to about 0.8× the bare canvas (bench/editor.ts). Here the nodes repaint only
 * when the flow or the minimap's extent changes; the mask's layer (`.wf-minimap`, composited on
 * its own) is what a pan repaints.
 *
 * The extent is xyflow's: the nodes' bounds joined with the view, framed to the minimap's box
 * with the same offset, so each rect lies where the mask expects it.
 */
import { type InternalNode, Panel, type ReactFlowState, useStore } from '@xyflow/react';

/** xyflow's MiniMap defaults (its box, and the margin it frames the extent with). */
const WIDTH = 200;
const HEIGHT = 150;
const OFFSET_SCALE = 5;

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface NodesDrawing {
  /** Bounds of the shown nodes, or null when none is shown. */
  bounds: Rect | null;
  /** Every shown node's rect, as one SVG path in flow coordinates. */
  path: string;
}

/** Per `nodes` array: xyflow hands a new one whenever a node moves, is measured, added or removed. */
const drawings = new WeakMap<object, NodesDrawing>();

function nodesDrawing(state: ReactFlowState): NodesDrawing {
  let drawing = drawings.get(state.nodes);
  if (drawing) return drawing;
  let path = '';
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (const node of state.nodeLookup.values()) {
    if (node.hidden) continue;
    const { x, y } = node.internals.positionAbsolute;
    const { width, height } = sizeOf(node);
    path += `M${x},${y}h${width}v${height}h${-width}z`;
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x + width);
    maxY = Math.max(maxY, y + height);
  }
  const bounds = path === '' ? null : { x: minX, y: minY, width: maxX - minX, height: maxY - minY };
  drawing = { bounds, path };
  drawings.set(state.nodes, drawing);
  return drawing;
}

/** The size xyflow gives a node: measured, else set, else its initial size. */
function sizeOf(node: InternalNode): { width: number; height: number } {
  return {
    width: node.measured?.width ?? node.width ?? node.initialWidth ?? 0,
    height: node.measured?.height ?? node.height ?? node.initialHeight ?? 0,
  };
}

/** The minimap's viewBox, as xyflow's MiniMap computes it (nodes ∪ view, centred, with a margin). */
function viewBoxOf(state: ReactFlowState): string {
  const [tx, ty, zoom] = state.transform;
  const view = { x: -tx / zoom, y: -ty / zoom, width: state.width / zoom, height: state.height / zoom };
  const { bounds } = nodesDrawing(state);
  const box = bounds ? union(bounds, view) : view;
  const scale = Math.max(box.width / WIDTH, box.height / HEIGHT);
  const offset = OFFSET_SCALE * scale;
  const x = box.x - (scale * WIDTH - box.width) / 2 - offset;
  const y = box.y - (scale * HEIGHT - box.height) / 2 - offset;
  return `${x} ${y} ${scale * WIDTH + offset * 2} ${scale * HEIGHT + offset * 2}`;
}

function union(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return {
    x,
    y,
    width: Math.max(a.x + a.width, b.x + b.width) - x,
    height: Math.max(a.y + a.height, b.y + b.height) - y,
  };
}

const pathOf = (state: ReactFlowState) => nodesDrawing(state).path;

/** Placed before `<MiniMap className="wf-minimap" nodeComponent={NoMinimapNode} />`, so it sits under it. */
export function MinimapNodes() {
  // Strings: a pan inside the nodes' bounds changes neither, so nothing here renders again.
  const viewBox = useStore(viewBoxOf);
  const path = useStore(pathOf);
  return (
    <Panel position="bottom-right" className="wf-minimap-nodes" aria-hidden="true">
      <svg width={WIDTH} height={HEIGHT} viewBox={viewBox} role="presentation">
        <path className="react-flow__minimap-node" d={path} />
      </svg>
    </Panel>
  );
}

/** xyflow's MiniMap draws no node of its own: MinimapNodes has them. */
export function NoMinimapNode() {
  return null;
}
