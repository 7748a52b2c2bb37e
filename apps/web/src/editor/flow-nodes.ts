/**
 * FlowGraph → @xyflow/react nodes and edges. Node objects are reused while their graph node and
 * selection are unchanged (memoized node components then skip rendering), and each keeps the
 * `measured` size xyflow gave it, which a controlled flow must hand back.
 */

import { type FlowGraph, type GraphEdge, type GraphNode, NODE_HEIGHT, NODE_WIDTH } from '@weft/engine';
import type { Edge, Node } from '@xyflow/react';
import { type Bridge, canFold, foldGraph } from '../graph/fold.ts';
import { edgeLabel, outHandles } from '../graph/graph-edit.ts';
import { DEFAULT_SIZE } from '../graph/node-sizes.ts';
import { isContainerType } from '../graph/step-catalog.ts';

export interface WeftNodeData extends Record<string, unknown> {
  node: GraphNode;
  /** Named out-handles (branch cases + else, parallel branches); empty means one default handle. */
  handles: string[];
  /** Drawn folded (Canvas's collapsed set): a container's body, or a branch/parallel's arms, hidden. */
  collapsed?: boolean;
}

export type WeftNode = Node<WeftNodeData>;

const PADDING = 30;
const NO_HANDLES: string[] = [];
const NO_IDS: ReadonlySet<string> = new Set();
/** A collapsed container: its title bar only. */
const COLLAPSED_HEIGHT = 44;

function nodeType(node: GraphNode): string {
  if (node.kind === 'step') return isContainerType(node.stepType) ? 'container' : 'step';
  return node.kind;
}

/** How deep each node is nested (0: top level), for the parents-first order xyflow wants. */
function depths(graph: FlowGraph, byId: ReadonlyMap<string, GraphNode>): Map<string, number> {
  const depthOf = new Map<string, number>();
  const visit = (node: GraphNode, hops: number): number => {
    const known = depthOf.get(node.id);
    if (known !== undefined) return known;
    const parent = node.parentId === undefined ? undefined : byId.get(node.parentId);
    const depth = parent && hops < 64 ? visit(parent, hops + 1) + 1 : 0;
    depthOf.set(node.id, depth);
    return depth;
  };
  for (const node of graph.nodes) visit(node, 0);
  return depthOf;
}

/** The nodes a fold hides (graph/fold.ts): a folded container's insides, a folded fan-out's arms. */
export function hiddenNodeIds(graph: FlowGraph, collapsed: ReadonlySet<string>): ReadonlySet<string> {
  return collapsed.size === 0 ? NO_IDS : foldGraph(graph, collapsed).hidden;
}

/** A container's box: its saved/auto size, grown to hold its children. */
function containerSize(container: GraphNode, children: readonly GraphNode[]) {
  let width = container.size?.width ?? NODE_WIDTH + 2 * PADDING;
  let height = container.size?.height ?? 110;
  for (const child of children) {
    const size = child.size ?? { width: NODE_WIDTH, height: NODE_HEIGHT };
    width = Math.max(width, child.position.x + size.width + PADDING);
    height = Math.max(height, child.position.y + size.height + PADDING);
  }
  return { width, height };
}

function sameHandles(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((handle, index) => handle === b[index]);
}

/** `selected`: the selected node ids (a single id or null is accepted too). */
export function toFlowNodes(
  graph: FlowGraph,
  selected: ReadonlySet<string> | readonly string[] | string | null,
  previous: readonly WeftNode[],
  collapsed: ReadonlySet<string> = NO_IDS,
): WeftNode[] {
  const selectedIds: ReadonlySet<string> =
    selected === null ? new Set() : typeof selected === 'string' ? new Set([selected]) : new Set(selected);
  const prevById = new Map(previous.map((node) => [node.id, node]));
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  // Indexes built once: on a 2,000-step flow this runs on every keystroke in the inspector.
  const childrenOf = new Map<string, GraphNode[]>();
  for (const node of graph.nodes) {
    if (node.parentId === undefined) continue;
    const list = childrenOf.get(node.parentId);
    if (list) list.push(node);
    else childrenOf.set(node.parentId, [node]);
  }
  const edgesFrom = new Map<string, GraphEdge[]>();
  for (const edge of graph.edges) {
    if (!edge.sourceHandle) continue;
    const list = edgesFrom.get(edge.source);
    if (list) list.push(edge);
    else edgesFrom.set(edge.source, [edge]);
  }
  const depthOf = depths(graph, byId);
  const hiddenIds = hiddenNodeIds(graph, collapsed);
  // xyflow wants parents before their children.
  const ordered = [...graph.nodes].sort((a, b) => (depthOf.get(a.id) ?? 0) - (depthOf.get(b.id) ?? 0));
  return ordered.map((node) => {
    const prev = prevById.get(node.id);
    // outHandles reads only the node's own edges: handed just those.
    const handles =
      node.kind === 'step' ? outHandles({ ...graph, edges: edgesFrom.get(node.id) ?? [] }, node) : NO_HANDLES;
    const selected = selectedIds.has(node.id);
    const type = nodeType(node);
    const container = type === 'container';
    const folded = collapsed.has(node.id) && canFold(node);
    const size = !container
      ? undefined
      : folded
        ? { width: node.size?.width ?? NODE_WIDTH + 2 * PADDING, height: COLLAPSED_HEIGHT }
        : containerSize(node, childrenOf.get(node.id) ?? []);
    const hidden = hiddenIds.has(node.id);
    if (
      prev &&
      prev.data.node === node &&
      prev.selected === selected &&
      (prev.hidden ?? false) === hidden &&
      (prev.data.collapsed ?? false) === folded &&
      sameHandles(prev.data.handles, handles) &&
      (!size || (prev.width === size.width && prev.height === size.height))
    ) {
      return prev;
    }
    return {
      id: node.id,
      type,
      position: node.position,
      data: folded ? { node, handles, collapsed: true } : { node, handles },
      selected,
      ...(hidden ? { hidden: true } : {}),
      ...(node.parentId ? { parentId: node.parentId, extent: 'parent' as const } : {}),
      // A container has its size; any other node its default one until xyflow measures it, so it
      // is shown in the first frame rather than hidden until measured (and re-rendered then).
      ...(size
        ? { width: size.width, height: size.height }
        : { initialWidth: DEFAULT_SIZE[node.kind].width, initialHeight: DEFAULT_SIZE[node.kind].height }),
      ...(node.kind === 'start' || node.kind === 'end' ? { deletable: false } : {}),
      ...(prev?.measured ? { measured: prev.measured } : {}),
    };
  });
}

const NO_BRIDGES: readonly Bridge[] = [];

export function toFlowEdges(
  graph: FlowGraph,
  previous: readonly Edge[],
  selectedEdgeIds: readonly string[] = [],
  hiddenNodes: ReadonlySet<string> = NO_IDS,
  bridges: readonly Bridge[] = NO_BRIDGES,
): Edge[] {
  const prevById = new Map(previous.map((edge) => [edge.id, edge]));
  const chosen = new Set(selectedEdgeIds);
  const edges = graph.edges.map((edge): Edge => {
    const prev = prevById.get(edge.id);
    const selected = chosen.has(edge.id);
    const hidden = hiddenNodes.has(edge.source) || hiddenNodes.has(edge.target);
    // Same ends, same handle: same name too (it is made of them and the source's step type, which
    // an id keeps). Not recomputed: naming looks the source up, thousands of times per edit.
    if (
      prev &&
      prev.source === edge.source &&
      prev.target === edge.target &&
      (prev.sourceHandle ?? undefined) === (edge.sourceHandle ?? undefined) &&
      (prev.selected ?? false) === selected &&
      (prev.hidden ?? false) === hidden
    )
      return prev;
    // The accessible name (`Edge from parallel (branch a) to parallel/join`): select an edge, then
    // a palette click inserts the step on it.
    const ariaLabel = edgeLabel(graph, edge);
    return {
      id: edge.id,
      selected,
      ...(hidden ? { hidden: true } : {}),
      ariaLabel,
      focusable: true,
      source: edge.source,
      target: edge.target,
      ...(edge.sourceHandle ? { sourceHandle: edge.sourceHandle, label: edge.sourceHandle } : {}),
    };
  });
  if (bridges.length === 0) return edges;
  // A folded fan-out's arms drawn as one dashed edge: not an edge of the flow, so not editable.
  for (const bridge of bridges) {
    const prev = prevById.get(bridge.id);
    const hidden = hiddenNodes.has(bridge.source) || hiddenNodes.has(bridge.target);
    const label = `${bridge.steps} step${bridge.steps === 1 ? '' : 's'} folded`;
    if (
      prev &&
      prev.label === label &&
      prev.sourceHandle === bridge.sourceHandle &&
      (prev.hidden ?? false) === hidden
    ) {
      edges.push(prev);
      continue;
    }
    edges.push({
      id: bridge.id,
      source: bridge.source,
      target: bridge.target,
      sourceHandle: bridge.sourceHandle,
      label,
      ariaLabel: `${label} in ${bridge.source}`,
      className: 'wf-bridge',
      selectable: false,
      deletable: false,
      focusable: false,
      ...(hidden ? { hidden: true } : {}),
    });
  }
  return edges;
}
