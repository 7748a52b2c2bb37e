/**
 * Copy/paste of steps. A copy takes the selected steps plus what they cannot live without: a
 * container's body and a fan-out's merge/join node; edges between copied nodes come along. A
 * paste gives every step a fresh id (`reply` → `reply_2`), renames merge/join nodes, edges,
 * parents and `steps.<id>` references among the pasted steps, and offsets the positions.
 */
import { type FlowGraph, type GraphEdge, type GraphNode, joinNodeId, mergeNodeId } from '@weft/engine';
import { makeEdge } from './graph-edit.ts';
import { applyRenames } from './rename.ts';

export interface Clipboard {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

function absolute(graph: FlowGraph, node: GraphNode): { x: number; y: number } {
  const byId = new Map(graph.nodes.map((candidate) => [candidate.id, candidate]));
  let { x, y } = node.position;
  for (let parent = byId.get(node.parentId ?? ''); parent; parent = byId.get(parent.parentId ?? '')) {
    x += parent.position.x;
    y += parent.position.y;
  }
  return { x, y };
}

/** The clipboard for `ids` (start/end are never copied); null when nothing copyable is selected. */
export function copyNodes(graph: FlowGraph, ids: readonly string[]): Clipboard | null {
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  const picked = new Set<string>();
  const visit = (id: string) => {
    const node = byId.get(id);
    if (!node || node.kind === 'start' || node.kind === 'end' || picked.has(id)) return;
    picked.add(id);
    for (const child of graph.nodes) if (child.parentId === id) visit(child.id);
    if (node.kind === 'step') {
      visit(mergeNodeId(id));
      visit(joinNodeId(id));
    }
  };
  ids.forEach(visit);
  if (picked.size === 0) return null;
  const nodes = graph.nodes
    .filter((node) => picked.has(node.id))
    .map((node) => {
      // A node copied without its container is pasted at the top level, where it was drawn.
      if (node.parentId === undefined || picked.has(node.parentId)) return structuredClone(node);
      const { parentId: _parent, ...rest } = structuredClone(node);
      return { ...rest, position: absolute(graph, node) };
    });
  const edges = graph.edges
    .filter((edge) => picked.has(edge.source) && picked.has(edge.target))
    .map((edge) => ({ ...edge }));
  // An arm whose steps were left behind becomes an empty arm, so a copied fan-out still compiles.
  for (const edge of graph.edges) {
    const source = byId.get(edge.source);
    if (!picked.has(edge.source) || picked.has(edge.target) || !edge.sourceHandle || edge.sourceHandle === 'body')
      continue;
    const exit = source?.stepType === 'branch' ? mergeNodeId(edge.source) : joinNodeId(edge.source);
    if (picked.has(exit)) edges.push(makeEdge(edge.source, exit, edge.sourceHandle));
  }
  return { nodes, edges };
}

/** `reply` → `reply_2`, `llm_2` → `llm_3`: the first id on that stem not in `taken`. */
export function freshCopyId(id: string, taken: ReadonlySet<string>): string {
  const stem = id.replace(/_\d+$/, '');
  if (!taken.has(stem)) return stem;
  for (let n = 2; ; n++) {
    const candidate = `${stem}_${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Pastes the clipboard offset by `offset`; returns the new graph and the pasted step ids. */
export function pasteNodes(
  graph: FlowGraph,
  clipboard: Clipboard,
  offset: { x: number; y: number } = { x: 40, y: 40 },
): { graph: FlowGraph; ids: string[] } {
  const taken = new Set(graph.nodes.map((node) => node.id));
  const renames = new Map<string, string>();
  for (const node of clipboard.nodes) {
    if (node.kind !== 'step') continue;
    const id = freshCopyId(node.id, taken);
    taken.add(id);
    taken.add(mergeNodeId(id));
    taken.add(joinNodeId(id));
    renames.set(node.id, id);
  }
  const moved = clipboard.nodes.map((node) =>
    node.parentId === undefined
      ? { ...node, position: { x: node.position.x + offset.x, y: node.position.y + offset.y } }
      : node,
  );
  const renamed = applyRenames(moved, clipboard.edges, renames);
  // A merge/join copied without its fan-out (renames miss it) would clash: leave it out.
  const nodes = renamed.nodes.filter(
    (node) => node.kind === 'step' || !graph.nodes.some((other) => other.id === node.id),
  );
  const kept = new Set(nodes.map((node) => node.id));
  const edges = renamed.edges.filter((edge) => kept.has(edge.source) && kept.has(edge.target));
  return {
    graph: { ...graph, nodes: [...graph.nodes, ...nodes], edges: [...graph.edges, ...edges] },
    ids: nodes.map((node) => node.id),
  };
}
