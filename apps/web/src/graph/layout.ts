/**
 * Auto-layout: layered, top to bottom, with elkjs; a container (map/loop) is laid out around its
 * body. `simpleLayout` (the engine's own column layout, via graph → IR → graph) is the fallback
 * when elk fails, and the layout of flows too large for elk to lay out in a moment; a graph that
 * does not compile keeps its positions there. A long flow is then wrapped into columns
 * (wrap-columns.ts), so fit-to-view shows all of it.
 */
import { BODY_HANDLE, type Flow, type FlowGraph, flowToGraph, type GraphNode, graphToFlow } from '@weft/engine';
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api';
import { DEFAULT_SIZE, type Size } from './node-sizes.ts';
import { wrapColumns } from './wrap-columns.ts';

export type { Size };

const LAYERED = {
  'elk.algorithm': 'layered',
  'elk.direction': 'DOWN',
  'elk.spacing.nodeNode': '40',
  'elk.layered.spacing.nodeNodeBetweenLayers': '50',
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
  'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
};
const CONTAINER = { ...LAYERED, 'elk.padding': '[top=55,left=30,bottom=30,right=30]' };

type Elk = { layout(graph: ElkNode): Promise<ElkNode> };
let elk: Promise<Elk> | null = null;

/** elk is large: loaded (its own chunk) the first time a layout is asked for. */
function loadElk(): Promise<Elk> {
  elk ??= import('elkjs/lib/elk.bundled.js').then(({ default: Elk }) => new Elk());
  return elk;
}

/**
 * Lays `graph` out with elk. `sizes` are the drawn sizes of nodes (xyflow's `measured`); nodes
 * without one get a default. Positions of a container's children stay relative to it.
 */
export async function elkLayout(graph: FlowGraph, sizes: ReadonlyMap<string, Size> = new Map()): Promise<FlowGraph> {
  const children = new Map<string | undefined, GraphNode[]>();
  for (const node of graph.nodes) {
    const list = children.get(node.parentId) ?? [];
    list.push(node);
    children.set(node.parentId, list);
  }
  const parentOf = new Map(graph.nodes.map((node) => [node.id, node.parentId]));
  // Edges go to the level holding both ends; a container's `body` edge is implied by nesting.
  const edgesAt = new Map<string | undefined, ElkExtendedEdge[]>();
  for (const edge of graph.edges) {
    if (edge.sourceHandle === BODY_HANDLE) continue;
    if (!parentOf.has(edge.source) || !parentOf.has(edge.target)) continue;
    const level = parentOf.get(edge.source);
    if (level !== parentOf.get(edge.target)) continue;
    const list = edgesAt.get(level) ?? [];
    list.push({ id: edge.id, sources: [edge.source], targets: [edge.target] });
    edgesAt.set(level, list);
  }
  const build = (node: GraphNode): ElkNode => {
    const inner = children.get(node.id);
    if (inner && inner.length > 0)
      return { id: node.id, layoutOptions: CONTAINER, children: inner.map(build), edges: edgesAt.get(node.id) ?? [] };
    const size = sizes.get(node.id) ?? node.size ?? DEFAULT_SIZE[node.kind];
    return { id: node.id, width: size.width, height: size.height };
  };
  const root: ElkNode = {
    id: '@root',
    layoutOptions: LAYERED,
    children: (children.get(undefined) ?? []).map(build),
    edges: edgesAt.get(undefined) ?? [],
  };
  const laid = await (await loadElk()).layout(root);
  const boxes = new Map<string, ElkNode>();
  const collect = (node: ElkNode) => {
    boxes.set(node.id, node);
    node.children?.forEach(collect);
  };
  laid.children?.forEach(collect);
  return {
    ...graph,
    nodes: graph.nodes.map((node) => {
      const box = boxes.get(node.id);
      if (!box) return node;
      const position = { x: Math.round(box.x ?? 0), y: Math.round(box.y ?? 0) };
      const container = (children.get(node.id)?.length ?? 0) > 0;
      return {
        ...node,
        position,
        ...(container ? { size: { width: Math.round(box.width ?? 0), height: Math.round(box.height ?? 0) } } : {}),
      };
    }),
  };
}

/** The engine's column layout; returns the graph unchanged when it does not compile. */
export function simpleLayout(graph: FlowGraph): FlowGraph {
  const compiled = graphToFlow(graph);
  if (!compiled.ok) return graph;
  const { ui: _ui, ...flow } = compiled.flow;
  const drawn = new Map(flowToGraph(flow).nodes.map((node) => [node.id, node]));
  return {
    ...graph,
    nodes: graph.nodes.map((node) => {
      const laid = drawn.get(node.id);
      if (!laid) return node;
      return { ...node, position: laid.position, ...(laid.size ? { size: laid.size } : {}) };
    }),
  };
}

/** Nodes above which elk takes seconds (it runs on the page's thread): the column layout instead. */
const ELK_MAX_NODES = 400;

/** elk, falling back to the simple layout if elk throws; long flows wrapped into columns. */
export async function autoLayout(graph: FlowGraph, sizes?: ReadonlyMap<string, Size>): Promise<FlowGraph> {
  let laid: FlowGraph;
  try {
    laid = graph.nodes.length > ELK_MAX_NODES ? simpleLayout(graph) : await elkLayout(graph, sizes);
  } catch {
    laid = simpleLayout(graph);
  }
  return wrapColumns(laid, sizes);
}

/**
 * A flow document drawn for the canvas: its saved positions, or — a flow without them, e.g. one
 * written by hand or generated — the engine's column layout, wrapped into columns when long.
 */
export function drawFlow(flow: Flow): FlowGraph {
  const graph = flowToGraph(flow);
  const positions = flow.ui?.positions;
  const hasSaved = typeof positions === 'object' && positions !== null && Object.keys(positions).length > 0;
  return hasSaved ? graph : wrapColumns(graph);
}
