/**
 * Pure edits of the canvas graph (the engine's FlowGraph). The store applies them; keeping them
 * here keeps the store small and lets them be tested without React.
 */
import {
  BODY_HANDLE,
  caseHandle,
  ELSE_HANDLE,
  edgeId,
  type FlowGraph,
  type GraphEdge,
  type GraphNode,
  type Json,
  joinNodeId,
  mergeNodeId,
  NODE_HEIGHT,
  NODE_WIDTH,
  type StepType,
} from '@weft/engine';
import { isContainerType, stepInfo } from './step-catalog.ts';

// Drawn nodes are taller than the engine's layout unit (model line, streamed text): leave room.
const GAP_Y = NODE_HEIGHT + 90;

/** A step id not used in the graph: `llm`, `llm_2`, … (step ids are identifiers). */
export function freshStepId(graph: FlowGraph, type: StepType): string {
  const taken = new Set(graph.nodes.map((node) => node.id));
  if (!taken.has(type)) return type;
  for (let n = 2; ; n++) if (!taken.has(`${type}_${n}`)) return `${type}_${n}`;
}

export function makeEdge(source: string, target: string, sourceHandle?: string): GraphEdge {
  return { id: edgeId(source, target, sourceHandle), source, target, ...(sourceHandle ? { sourceHandle } : {}) };
}

/** The nodes (and inner edges) a new step of `type` brings: branch/parallel bring their merge/join. */
function newStep(graph: FlowGraph, type: StepType, position: { x: number; y: number }, parentId?: string) {
  const id = freshStepId(graph, type);
  const info = stepInfo(type);
  const step: GraphNode = {
    id,
    kind: 'step',
    stepType: type,
    config: structuredClone(info?.defaults ?? {}) as Record<string, Json>,
    position,
    ...(parentId ? { parentId } : {}),
    ...(isContainerType(type) ? { size: { width: NODE_WIDTH + 60, height: 110 } } : {}),
  };
  const nodes = [step];
  const edges: GraphEdge[] = [];
  let exit = id;
  const below = { x: position.x, y: position.y + GAP_Y * 1.5 };
  if (type === 'branch') {
    const merge: GraphNode = { id: mergeNodeId(id), kind: 'merge', position: below, ...(parentId ? { parentId } : {}) };
    nodes.push(merge);
    edges.push(makeEdge(id, merge.id, caseHandle(0)), makeEdge(id, merge.id, ELSE_HANDLE));
    exit = merge.id;
  } else if (type === 'parallel') {
    const join: GraphNode = { id: joinNodeId(id), kind: 'join', position: below, ...(parentId ? { parentId } : {}) };
    nodes.push(join);
    edges.push(makeEdge(id, join.id, 'a'), makeEdge(id, join.id, 'b'));
    exit = join.id;
  }
  return { id, exit, nodes, edges, height: (exit === id ? 1 : 2.5) * GAP_Y + (isContainerType(type) ? 120 : 0) };
}

/**
 * Adds a step of `type` after `afterId` (its plain out-edge is moved to the new step's exit), or
 * before `end` when nothing fitting is selected. Nodes below the insertion point move down.
 */
export function appendStep(graph: FlowGraph, type: StepType, afterId: string | null): { graph: FlowGraph; id: string } {
  const selected = graph.nodes.find((node) => node.id === afterId);
  if (
    selected &&
    isContainerType(selected.stepType) &&
    !graph.edges.some((e) => e.source === selected.id && e.sourceHandle === BODY_HANDLE)
  ) {
    // An empty map/loop: the new step starts its body.
    const added = newStep(graph, type, { x: 30, y: 50 }, selected.id);
    const edges = [...graph.edges, makeEdge(selected.id, added.id, BODY_HANDLE), ...added.edges];
    return { graph: { ...graph, nodes: [...graph.nodes, ...added.nodes], edges }, id: added.id };
  }
  const after =
    graph.nodes.find((node) => node.id === afterId && node.kind !== 'end') ??
    graph.nodes.find((node) =>
      graph.edges.some((edge) => edge.source === node.id && targetKind(graph, edge) === 'end'),
    );
  let anchor = after ?? graph.nodes.find((node) => node.kind === 'start');
  // After a fan-out means after its merge/join node.
  if (anchor?.stepType === 'branch' || anchor?.stepType === 'parallel') {
    const exitId = anchor.stepType === 'branch' ? mergeNodeId(anchor.id) : joinNodeId(anchor.id);
    anchor = graph.nodes.find((node) => node.id === exitId) ?? anchor;
  }
  const position = anchor ? { x: anchor.position.x, y: anchor.position.y + GAP_Y } : { x: 0, y: 0 };
  const added = newStep(graph, type, position, anchor?.parentId);
  const nodes = graph.nodes.map((node) =>
    anchor && node.parentId === anchor.parentId && node.id !== anchor.id && node.position.y > anchor.position.y
      ? { ...node, position: { x: node.position.x, y: node.position.y + added.height } }
      : node,
  );
  let edges = graph.edges;
  if (anchor) {
    const out = edges.find((edge) => edge.source === anchor.id && !edge.sourceHandle);
    edges = edges.filter((edge) => edge !== out);
    edges = [...edges, makeEdge(anchor.id, added.id)];
    if (out) edges.push(makeEdge(added.exit, out.target));
  }
  return { graph: { ...graph, nodes: [...nodes, ...added.nodes], edges: [...edges, ...added.edges] }, id: added.id };
}

function targetKind(graph: FlowGraph, edge: GraphEdge) {
  return graph.nodes.find((node) => node.id === edge.target)?.kind;
}

/** Adds an unconnected step at a canvas position (drag and drop). */
export function dropStep(graph: FlowGraph, type: StepType, position: { x: number; y: number }) {
  const added = newStep(graph, type, position);
  return {
    graph: { ...graph, nodes: [...graph.nodes, ...added.nodes], edges: [...graph.edges, ...added.edges] },
    id: added.id,
  };
}

export function connect(graph: FlowGraph, source: string, target: string, sourceHandle?: string | null): FlowGraph {
  const edge = makeEdge(source, target, sourceHandle ?? undefined);
  if (graph.edges.some((other) => other.id === edge.id)) return graph;
  return { ...graph, edges: [...graph.edges, edge] };
}

/** Removes nodes (with their container bodies and merge/join partners) and edges touching them. */
export function removeNodes(graph: FlowGraph, ids: readonly string[]): FlowGraph {
  const gone = new Set<string>();
  const visit = (id: string) => {
    const node = graph.nodes.find((candidate) => candidate.id === id);
    if (!node || node.kind === 'start' || node.kind === 'end' || gone.has(id)) return;
    gone.add(id);
    for (const child of graph.nodes) if (child.parentId === id) visit(child.id);
    visit(mergeNodeId(id));
    visit(joinNodeId(id));
  };
  ids.forEach(visit);
  if (gone.size === 0) return graph;
  return {
    ...graph,
    nodes: graph.nodes.filter((node) => !gone.has(node.id)),
    edges: graph.edges.filter((edge) => !gone.has(edge.source) && !gone.has(edge.target)),
  };
}

export function removeEdges(graph: FlowGraph, ids: readonly string[]): FlowGraph {
  const gone = new Set(ids);
  return { ...graph, edges: graph.edges.filter((edge) => !gone.has(edge.id)) };
}

export function setConfig(graph: FlowGraph, id: string, config: Record<string, Json>): FlowGraph {
  return { ...graph, nodes: graph.nodes.map((node) => (node.id === id ? { ...node, config } : node)) };
}

export function moveNodes(graph: FlowGraph, moves: ReadonlyMap<string, { x: number; y: number }>): FlowGraph {
  return {
    ...graph,
    nodes: graph.nodes.map((node) => {
      const position = moves.get(node.id);
      return position ? { ...node, position } : node;
    }),
  };
}

/** The out-handles of a node: branch cases + else, parallel branch names, or none (the default). */
export function outHandles(graph: FlowGraph, node: GraphNode): string[] {
  if (node.kind !== 'step') return [];
  if (node.stepType === 'branch') {
    const cases = Array.isArray(node.config?.cases) ? node.config.cases.length : 0;
    return [...Array.from({ length: Math.max(cases, 1) }, (_, i) => caseHandle(i)), ELSE_HANDLE];
  }
  if (node.stepType === 'parallel') {
    const names = new Set<string>();
    const branches = node.config?.branches;
    if (branches && typeof branches === 'object' && !Array.isArray(branches))
      for (const name of Object.keys(branches)) names.add(name);
    for (const edge of graph.edges) if (edge.source === node.id && edge.sourceHandle) names.add(edge.sourceHandle);
    return [...names];
  }
  return [];
}
