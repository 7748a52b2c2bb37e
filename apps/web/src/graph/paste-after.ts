/**
 * Pasting after the selection: the pasted steps land below the selected step and, when they form
 * one chain, are wired in after it (selected → pasted … → what followed it), the nodes below making
 * room — the way a palette click appends. With nothing selected (or a selection that is not one
 * step) they land a little offset from where they were copied, unconnected.
 */
import { type FlowGraph, type GraphNode, type Json, joinNodeId, mergeNodeId } from '@weft/engine';
import { type Clipboard, pasteNodes } from './clipboard.ts';
import { chainsOf } from './clipboard-ir.ts';
import { GAP_Y, makeEdge } from './graph-edit.ts';

/** The node a step's successors hang off: a fan-out's merge/join, else the step itself. */
function exitOf(graph: FlowGraph, node: GraphNode): GraphNode {
  const exitId =
    node.stepType === 'branch' ? mergeNodeId(node.id) : node.stepType === 'parallel' ? joinNodeId(node.id) : null;
  return graph.nodes.find((candidate) => candidate.id === exitId) ?? node;
}

export function pasteAfter(
  graph: FlowGraph,
  clipboard: Clipboard,
  anchorId: string | null,
  pasteCount: number,
  tools: Record<string, Json> = {},
): { graph: FlowGraph; ids: string[] } {
  const withTools = addMissingTools(graph, tools);
  const anchor = withTools.nodes.find((node) => node.id === anchorId && node.kind !== 'end');
  const chains = chainsOf(clipboard);
  if (!anchor || chains.length !== 1) {
    const shift = 40 * (pasteCount + 1);
    return pasteNodes(withTools, clipboard, { x: shift, y: shift });
  }
  const exit = exitOf(withTools, anchor);
  const [entryId] = chains[0]!;
  const entry = clipboard.nodes.find((node) => node.id === entryId)!;
  const top = clipboard.nodes.filter((node) => node.parentId === undefined);
  const height = Math.max(...top.map((node) => node.position.y)) - Math.min(...top.map((node) => node.position.y));
  const offset = { x: exit.position.x - entry.position.x, y: exit.position.y + GAP_Y - entry.position.y };
  const pasted = pasteNodes(withTools, clipboard, offset);
  const ids = new Set(pasted.ids);
  const newTop = pasted.graph.nodes.filter((node) => ids.has(node.id) && node.parentId === undefined);
  const [[newEntry, newExit]] = chainsOf({
    nodes: newTop,
    edges: pasted.graph.edges.filter((edge) => ids.has(edge.source) && ids.has(edge.target)),
  }) as [[string, string]];
  // Below the anchor, in its container, everything moves down to make room.
  const room = height + GAP_Y;
  const nodes = pasted.graph.nodes.map((node) => {
    if (ids.has(node.id))
      return node.parentId === undefined && anchor.parentId ? { ...node, parentId: anchor.parentId } : node;
    return node.parentId === exit.parentId && node.id !== exit.id && node.position.y > exit.position.y
      ? { ...node, position: { x: node.position.x, y: node.position.y + room } }
      : node;
  });
  const out = pasted.graph.edges.find((edge) => edge.source === exit.id && !edge.sourceHandle);
  const edges = pasted.graph.edges.filter((edge) => edge !== out);
  edges.push(makeEdge(exit.id, newEntry));
  if (out) edges.push(makeEdge(newExit, out.target));
  return { graph: { ...pasted.graph, nodes, edges }, ids: pasted.ids };
}

/** The flow tools pasted steps brought that the flow lacks (a tool of the same name is kept). */
function addMissingTools(graph: FlowGraph, tools: Record<string, Json>): FlowGraph {
  const missing = Object.entries(tools).filter(([name]) => !Object.hasOwn(graph.meta.tools ?? {}, name));
  if (missing.length === 0) return graph;
  return { ...graph, meta: { ...graph.meta, tools: { ...graph.meta.tools, ...Object.fromEntries(missing) } } };
}
