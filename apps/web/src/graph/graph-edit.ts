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
export const GAP_Y = NODE_HEIGHT + 90;

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

/** How an edge's source handle reads in its accessible name: `branch a`, `case 0`, `else`, `body`. */
export function describeHandle(graph: FlowGraph, edge: GraphEdge): string | null {
  const handle = edge.sourceHandle;
  if (!handle) return null;
  if (handle === BODY_HANDLE) return 'body';
  if (handle === ELSE_HANDLE) return 'else';
  const match = /^case-(\d+)$/.exec(handle);
  const source = graph.nodes.find((node) => node.id === edge.source);
  if (match && source?.stepType === 'branch') return `case ${match[1]}`;
  return source?.stepType === 'parallel' ? `branch ${handle}` : handle;
}

/** An edge's accessible name: `Edge from parallel (branch a) to parallel/join`. */
export function edgeLabel(graph: FlowGraph, edge: GraphEdge): string {
  const name = (id: string) => (id === '@start' ? 'Start' : id === '@end' ? 'End' : id);
  const handle = describeHandle(graph, edge);
  return `Edge from ${name(edge.source)}${handle ? ` (${handle})` : ''} to ${name(edge.target)}`;
}

/**
 * Inserts a step of `type` on the edge `edgeIdToSplit`: source → new → target. The first edge keeps
 * the source handle (`a`, `case-0`, `else`, `body`), so this fills an empty parallel branch, branch
 * arm or map/loop body. On a container's `body` edge the new step goes inside that container;
 * otherwise it shares the target's container. Nodes below make room. Returns null for an unknown edge.
 */
export function insertOnEdge(
  graph: FlowGraph,
  type: StepType,
  edgeIdToSplit: string,
): { graph: FlowGraph; id: string } | null {
  const edge = graph.edges.find((candidate) => candidate.id === edgeIdToSplit);
  const source = graph.nodes.find((node) => node.id === edge?.source);
  const target = graph.nodes.find((node) => node.id === edge?.target);
  if (!edge || !source || !target) return null;
  const intoBody = edge.sourceHandle === BODY_HANDLE;
  const parentId = intoBody ? source.id : (target.parentId ?? source.parentId);
  // A parallel without branches has one plain edge to its join: the step starts its first branch.
  let handle = edge.sourceHandle;
  if (!handle && source.stepType === 'parallel' && target.id === joinNodeId(source.id)) handle = 'a';

  let position: { x: number; y: number };
  if (intoBody) {
    position = { x: 30, y: 50 };
  } else {
    const arms = handle && handle !== BODY_HANDLE ? outHandles(graph, source) : [];
    const index = handle ? arms.indexOf(handle) : -1;
    // Arms side by side, clear of the edges that converge on the merge/join dot below the fan-out.
    const offset = index >= 0 && arms.length > 1 ? (index - (arms.length - 1) / 2) * (NODE_WIDTH + 160) : 0;
    position = { x: source.position.x + offset, y: source.position.y + GAP_Y };
  }
  const added = newStep(graph, type, position, parentId);
  // Make room: the target and the nodes of its container below it move down by what the step needs.
  const needed = position.y + added.height - target.position.y;
  const nodes = graph.nodes.map((node) =>
    needed > 0 && node.parentId === target.parentId && node.position.y >= target.position.y
      ? { ...node, position: { x: node.position.x, y: node.position.y + needed } }
      : node,
  );
  // In place: a parallel's branches are in edge order.
  const edges = graph.edges.flatMap((other) =>
    other.id === edge.id ? [makeEdge(source.id, added.id, handle), makeEdge(added.exit, target.id)] : [other],
  );
  edges.push(...added.edges);
  return { graph: { ...graph, nodes: [...nodes, ...added.nodes], edges }, id: added.id };
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

/**
 * Removes nodes (with their container bodies and merge/join partners) and edges touching them.
 * A step removed from a chain leaves no gap: when what is removed had one edge in and one plain
 * edge out, its neighbours are joined (keeping the in-edge's handle, so an arm or body whose
 * only step goes is empty again rather than dangling).
 */
export function removeNodes(graph: FlowGraph, ids: readonly string[]): FlowGraph {
  let next = graph;
  for (const id of ids) next = removeOne(next, id);
  return next;
}

function removeOne(graph: FlowGraph, id: string): FlowGraph {
  const gone = new Set<string>();
  const visit = (id: string) => {
    const node = graph.nodes.find((candidate) => candidate.id === id);
    if (!node || node.kind === 'start' || node.kind === 'end' || gone.has(id)) return;
    gone.add(id);
    for (const child of graph.nodes) if (child.parentId === id) visit(child.id);
    // A fan-out's arms go with it: everything between it and its merge/join node.
    if (node.stepType === 'branch' || node.stepType === 'parallel') {
      const exit = node.stepType === 'branch' ? mergeNodeId(id) : joinNodeId(id);
      const queue = graph.edges.filter((edge) => edge.source === id).map((edge) => edge.target);
      const seen = new Set<string>();
      while (queue.length > 0) {
        const next = queue.pop() ?? exit;
        if (next === exit || seen.has(next)) continue;
        seen.add(next);
        visit(next);
        for (const edge of graph.edges) if (edge.source === next) queue.push(edge.target);
      }
    }
    visit(mergeNodeId(id));
    visit(joinNodeId(id));
  };
  visit(id);
  if (gone.size === 0) return graph;
  const into = graph.edges.filter((edge) => gone.has(edge.target) && !gone.has(edge.source));
  const outOf = graph.edges.filter((edge) => gone.has(edge.source) && !gone.has(edge.target));
  const [inEdge] = into;
  const [outEdge] = outOf;
  let bridge: GraphEdge | null = null;
  if (into.length === 1 && outOf.length === 1 && inEdge && outEdge && !outEdge.sourceHandle) {
    bridge = makeEdge(inEdge.source, outEdge.target, inEdge.sourceHandle);
    const id = bridge.id;
    if (graph.edges.some((edge) => edge.id === id)) bridge = null;
  }
  // The bridge takes the in-edge's place: a parallel's branches are in edge order.
  const edges = graph.edges.flatMap((edge) => {
    if (bridge && edge === inEdge) return [bridge];
    return gone.has(edge.source) || gone.has(edge.target) ? [] : [edge];
  });
  return { ...graph, nodes: graph.nodes.filter((node) => !gone.has(node.id)), edges };
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
