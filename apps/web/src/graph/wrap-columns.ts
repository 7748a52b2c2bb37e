/**
 * A long flow wrapped into side-by-side columns, like a newspaper, instead of one column
 * thousands of steps tall (which fit-to-view can only show as a sliver at any zoom). Works on
 * any top-to-bottom layout (the engine's column layout, elk's layered one): the top level is cut
 * into bands where exactly one edge crosses from one band to the next (the chain between two
 * steps, never through a branch's arms or a container's body), and bands are stacked into
 * columns of about equal height, columns as many as make the whole roughly the shape of a
 * screen. Each column reads top to bottom; one edge per column climbs to the top of the next.
 */
import type { FlowGraph, GraphNode } from '@weft/engine';
import { DEFAULT_SIZE, type Size } from './node-sizes.ts';

/** Top-level nodes below which a flow stays one column (it fits a screen at a readable zoom). */
export const WRAP_FROM_NODES = 40;
/** Width / height the wrapped flow aims for: a wide screen's canvas. */
const ASPECT = 1.6;
const COLUMN_GAP = 120;

interface Band {
  nodes: GraphNode[];
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/** `graph` with its top level wrapped into columns when it is long; otherwise `graph` itself. */
export function wrapColumns(graph: FlowGraph, sizes: ReadonlyMap<string, Size> = new Map()): FlowGraph {
  const top = graph.nodes.filter((node) => node.parentId === undefined);
  if (top.length < WRAP_FROM_NODES) return graph;
  const sizeOf = (node: GraphNode) => sizes.get(node.id) ?? node.size ?? DEFAULT_SIZE[node.kind];
  const bands = cutIntoBands(graph, top, sizeOf);
  if (bands.length < 2) return graph;

  const height = bands.at(-1)!.bottom - bands[0]!.top;
  const width = Math.max(...bands.map((band) => band.right - band.left));
  const columns = Math.max(1, Math.round(Math.sqrt((ASPECT * height) / (width + COLUMN_GAP))));
  if (columns === 1) return graph;
  const columnHeight = height / columns;

  // Greedy: a band goes into the current column unless it would make it taller than the target.
  const moves = new Map<string, { dx: number; dy: number }>();
  let column: Band[] = [];
  let columnLeft = 0;
  const place = () => {
    if (column.length === 0) return;
    const left = Math.min(...column.map((band) => band.left));
    const right = Math.max(...column.map((band) => band.right));
    const dx = columnLeft - left;
    let y = bands[0]!.top;
    column.forEach((band, index) => {
      // Keep the gap the layout left between two bands (the edge between them needs it).
      if (index > 0) y += band.top - column[index - 1]!.bottom;
      const dy = y - band.top;
      for (const node of band.nodes) moves.set(node.id, { dx, dy });
      y += band.bottom - band.top;
    });
    columnLeft += right - left + COLUMN_GAP;
    column = [];
  };
  let used = 0;
  for (const band of bands) {
    const tall = band.bottom - band.top;
    if (column.length > 0 && used + tall > columnHeight) {
      place();
      used = 0;
    }
    column.push(band);
    used += tall + (column.length > 1 ? band.top - column[column.length - 2]!.bottom : 0);
  }
  place();

  return {
    ...graph,
    nodes: graph.nodes.map((node) => {
      const move = node.parentId === undefined ? moves.get(node.id) : undefined;
      if (!move || (move.dx === 0 && move.dy === 0)) return node;
      return { ...node, position: { x: node.position.x + move.dx, y: node.position.y + move.dy } };
    }),
  };
}

/**
 * The top level in bands: nodes sorted by their top, a band closed where the next node starts
 * below everything so far and only one edge crosses the gap.
 */
function cutIntoBands(graph: FlowGraph, top: GraphNode[], sizeOf: (node: GraphNode) => Size): Band[] {
  // Each node's top-level ancestor: an edge inside a container moves with the container.
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  const rootOf = (id: string): GraphNode | undefined => {
    let node = byId.get(id);
    for (let hops = 0; node?.parentId !== undefined && hops < 64; hops++) node = byId.get(node.parentId);
    return node;
  };
  const middle = (node: GraphNode) => node.position.y + sizeOf(node).height / 2;
  // An edge spans the heights between its ends' middles; the edges crossing a cut are those that
  // start above it, less those that also end above it (binary searches: a long flow has thousands).
  const starts: number[] = [];
  const ends: number[] = [];
  for (const edge of graph.edges) {
    const source = rootOf(edge.source);
    const target = rootOf(edge.target);
    if (!source || !target || source === target) continue;
    const a = middle(source);
    const b = middle(target);
    starts.push(Math.min(a, b));
    ends.push(Math.max(a, b));
  }
  starts.sort((a, b) => a - b);
  ends.sort((a, b) => a - b);
  const crossing = (cut: number) => countBelow(starts, cut) - countBelow(ends, cut);

  const sorted = [...top].sort((a, b) => a.position.y - b.position.y);
  const bands: Band[] = [];
  let band: Band | null = null;
  for (const node of sorted) {
    const { width, height } = sizeOf(node);
    const box = { top: node.position.y, bottom: node.position.y + height };
    if (band && box.top >= band.bottom && crossing((band.bottom + box.top) / 2) <= 1) {
      bands.push(band);
      band = null;
    }
    band ??= { nodes: [], top: box.top, bottom: box.bottom, left: node.position.x, right: node.position.x + width };
    band.nodes.push(node);
    band.bottom = Math.max(band.bottom, box.bottom);
    band.left = Math.min(band.left, node.position.x);
    band.right = Math.max(band.right, node.position.x + width);
  }
  if (band) bands.push(band);
  return bands;
}

/** How many of the sorted `values` are below `limit`. */
function countBelow(values: readonly number[], limit: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (values[mid]! < limit) low = mid + 1;
    else high = mid;
  }
  return low;
}
