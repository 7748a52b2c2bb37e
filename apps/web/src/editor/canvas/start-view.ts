/**
 * Where a fitted canvas starts before xyflow has measured anything. xyflow fits the view only
 * once every node is measured, and until then draws at its default 1× — so a 2,000-step flow
 * would first be drawn node by node in full (text, badges, edge labels that measure themselves)
 * and redrawn a moment later as the light far-zoom boxes (far.ts). Starting at an estimate of the
 * fitted view draws it once, the way it will be shown; fit-to-view then corrects the estimate.
 */
import type { FlowGraph } from '@weft/engine';
import { getViewportForBounds, type Viewport } from '@xyflow/react';
import { DEFAULT_SIZE } from '../../graph/node-sizes.ts';

/** xyflow's fit-to-view padding (`fitViewOptions.padding` default). */
const FIT_PADDING = 0.1;

/**
 * The view that fits `graph` (its top-level boxes, at their unmeasured sizes) into a `width` ×
 * `height` pane, zoom in [minZoom, maxZoom]: what fit-to-view settles on unless a node is
 * measured larger than its default size (a model line, live output).
 */
export function estimatedFitView(
  graph: FlowGraph,
  width: number,
  height: number,
  minZoom: number,
  maxZoom: number,
): Viewport {
  let left = Number.POSITIVE_INFINITY;
  let top = Number.POSITIVE_INFINITY;
  let right = Number.NEGATIVE_INFINITY;
  let bottom = Number.NEGATIVE_INFINITY;
  for (const node of graph.nodes) {
    // A child sits inside its container's box.
    if (node.parentId !== undefined) continue;
    const size = node.size ?? DEFAULT_SIZE[node.kind];
    left = Math.min(left, node.position.x);
    top = Math.min(top, node.position.y);
    right = Math.max(right, node.position.x + size.width);
    bottom = Math.max(bottom, node.position.y + size.height);
  }
  if (!Number.isFinite(left) || width <= 0 || height <= 0) return { x: 0, y: 0, zoom: 1 };
  const bounds = { x: left, y: top, width: right - left, height: bottom - top };
  return getViewportForBounds(bounds, width, height, minZoom, maxZoom, FIT_PADDING);
}
