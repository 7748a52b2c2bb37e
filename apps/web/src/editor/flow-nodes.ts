/**
 * FlowGraph → @xyflow/react nodes and edges. Node objects are reused while their graph node and
 * selection are unchanged (memoized node components then skip rendering), and each keeps the
 * `measured` size xyflow gave it, which a controlled flow must hand back.
 */

import { type FlowGraph, type GraphNode, NODE_HEIGHT, NODE_WIDTH } from '@weft/engine';
import type { Edge, Node } from '@xyflow/react';
import { edgeLabel, outHandles } from '../graph/graph-edit.ts';
import { isContainerType } from '../graph/step-catalog.ts';

export interface WeftNodeData extends Record<string, unknown> {
  node: GraphNode;
  /** Named out-handles (branch cases + else, parallel branches); empty means one default handle. */
  handles: string[];
}

export type WeftNode = Node<WeftNodeData>;

const PADDING = 30;

function nodeType(node: GraphNode): string {
  if (node.kind === 'step') return isContainerType(node.stepType) ? 'container' : 'step';
  return node.kind;
}

function depth(node: GraphNode, byId: Map<string, GraphNode>): number {
  let n = 0;
  for (let parent = node.parentId; parent !== undefined && n < 64; parent = byId.get(parent)?.parentId) n++;
  return n;
}

/** A container's box: its saved/auto size, grown to hold its children. */
function containerSize(graph: FlowGraph, container: GraphNode) {
  let width = container.size?.width ?? NODE_WIDTH + 2 * PADDING;
  let height = container.size?.height ?? 110;
  for (const child of graph.nodes) {
    if (child.parentId !== container.id) continue;
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
): WeftNode[] {
  const selectedIds: ReadonlySet<string> =
    selected === null ? new Set() : typeof selected === 'string' ? new Set([selected]) : new Set(selected);
  const prevById = new Map(previous.map((node) => [node.id, node]));
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  // xyflow wants parents before their children.
  const ordered = [...graph.nodes].sort((a, b) => depth(a, byId) - depth(b, byId));
  return ordered.map((node) => {
    const prev = prevById.get(node.id);
    const handles = outHandles(graph, node);
    const selected = selectedIds.has(node.id);
    const type = nodeType(node);
    const container = type === 'container';
    const size = container ? containerSize(graph, node) : undefined;
    if (
      prev &&
      prev.data.node === node &&
      prev.selected === selected &&
      sameHandles(prev.data.handles, handles) &&
      (!size || (prev.width === size.width && prev.height === size.height))
    ) {
      return prev;
    }
    return {
      id: node.id,
      type,
      position: node.position,
      data: { node, handles },
      selected,
      ...(node.parentId ? { parentId: node.parentId, extent: 'parent' as const } : {}),
      ...(size ? { width: size.width, height: size.height } : {}),
      ...(node.kind === 'start' || node.kind === 'end' ? { deletable: false } : {}),
      ...(prev?.measured ? { measured: prev.measured } : {}),
    };
  });
}

export function toFlowEdges(
  graph: FlowGraph,
  previous: readonly Edge[],
  selectedEdgeIds: readonly string[] = [],
): Edge[] {
  const prevById = new Map(previous.map((edge) => [edge.id, edge]));
  const chosen = new Set(selectedEdgeIds);
  return graph.edges.map((edge) => {
    const prev = prevById.get(edge.id);
    const selected = chosen.has(edge.id);
    // The accessible name (`Edge from parallel (branch a) to parallel/join`): select an edge, then
    // a palette click inserts the step on it.
    const ariaLabel = edgeLabel(graph, edge);
    if (
      prev &&
      prev.source === edge.source &&
      prev.target === edge.target &&
      (prev.selected ?? false) === selected &&
      prev.ariaLabel === ariaLabel
    )
      return prev;
    return {
      id: edge.id,
      selected,
      ariaLabel,
      focusable: true,
      source: edge.source,
      target: edge.target,
      ...(edge.sourceHandle ? { sourceHandle: edge.sourceHandle, label: edge.sourceHandle } : {}),
    };
  });
}
