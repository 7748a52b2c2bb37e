/**
 * Arms of fan-outs: add/rename/remove the named branches of a `parallel` and the cases (and
 * else arm) of a `branch`. A parallel's branch names live on its out-edges' handles; a branch's
 * cases live in `config.cases` and its arms leave by `case-N` / `else`. A new arm is an empty
 * one (an edge straight to the merge/join node); removing an arm removes its steps.
 */
import {
  BODY_HANDLE,
  caseHandle,
  ELSE_HANDLE,
  type FlowGraph,
  type GraphEdge,
  type GraphNode,
  type Json,
  joinNodeId,
  mergeNodeId,
} from '@weft/engine';
import { makeEdge, removeNodes } from './graph-edit.ts';
import { isIdentifier } from './rename.ts';

export type ArmResult = { ok: true; graph: FlowGraph } | { ok: false; error: string };

const fail = (error: string): ArmResult => ({ ok: false, error });

function fanOut(graph: FlowGraph, id: string, type: 'branch' | 'parallel') {
  const node = graph.nodes.find((candidate) => candidate.id === id);
  return node?.kind === 'step' && node.stepType === type ? node : undefined;
}

/** A parallel's branch names, in edge order. */
export function parallelBranches(graph: FlowGraph, id: string): string[] {
  const names: string[] = [];
  for (const edge of graph.edges)
    if (edge.source === id && edge.sourceHandle && !names.includes(edge.sourceHandle)) names.push(edge.sourceHandle);
  return names;
}

/** A graph indexed for walks: nodes by id, out-edges by source. */
export interface GraphIndex {
  byId: ReadonlyMap<string, GraphNode>;
  edgesFrom: ReadonlyMap<string, readonly GraphEdge[]>;
}

export function indexGraph(graph: FlowGraph): GraphIndex {
  const edgesFrom = new Map<string, GraphEdge[]>();
  for (const edge of graph.edges) {
    const list = edgesFrom.get(edge.source);
    if (list) list.push(edge);
    else edgesFrom.set(edge.source, [edge]);
  }
  return { byId: new Map(graph.nodes.map((node) => [node.id, node])), edgesFrom };
}

/**
 * The nodes of the arm starting at `edges`: everything reachable before the fan-out's exit node.
 * A fan-out inside the arm continues after its merge/join node; a container's body is not walked
 * (its steps belong to the container, which the caller handles by parent).
 */
export function armNodes(index: GraphIndex, edges: readonly GraphEdge[], exitId: string): string[] {
  const seen = new Set<string>();
  const queue = edges.map((edge) => edge.target);
  while (queue.length > 0) {
    const id = queue.pop() ?? '';
    const node = index.byId.get(id);
    if (id === exitId || seen.has(id) || !node || node.kind === 'start' || node.kind === 'end') continue;
    seen.add(id);
    for (const edge of index.edgesFrom.get(id) ?? []) if (edge.sourceHandle !== BODY_HANDLE) queue.push(edge.target);
  }
  return [...seen];
}

function dropArm(graph: FlowGraph, id: string, handle: string, exitId: string): FlowGraph {
  const edges = graph.edges.filter((edge) => edge.source === id && edge.sourceHandle === handle);
  const inner = armNodes(indexGraph(graph), edges, exitId);
  const gone = new Set(edges.map((edge) => edge.id));
  return removeNodes({ ...graph, edges: graph.edges.filter((edge) => !gone.has(edge.id)) }, inner);
}

/** The next free branch name: `a`, `b`, … `z`, then `branch_27`, … */
export function freshBranchName(taken: readonly string[]): string {
  for (let code = 97; code <= 122; code++) {
    const name = String.fromCharCode(code);
    if (!taken.includes(name)) return name;
  }
  for (let n = 27; ; n++) if (!taken.includes(`branch_${n}`)) return `branch_${n}`;
}

export function addParallelBranch(graph: FlowGraph, id: string, name?: string): ArmResult {
  if (!fanOut(graph, id, 'parallel')) return fail(`'${id}' is not a parallel step`);
  const taken = parallelBranches(graph, id);
  const branch = name ?? freshBranchName(taken);
  if (!isIdentifier(branch)) return fail('branch names are identifiers: letters, digits and _');
  if (taken.includes(branch)) return fail(`'${id}' already has a branch '${branch}'`);
  const join = joinNodeId(id);
  // A parallel without branches is drawn with one plain edge to its join: the first branch replaces it.
  const edges = graph.edges.filter(
    (edge) => !(edge.source === id && edge.sourceHandle === undefined && edge.target === join),
  );
  return { ok: true, graph: { ...graph, edges: [...edges, makeEdge(id, join, branch)] } };
}

export function renameParallelBranch(graph: FlowGraph, id: string, from: string, to: string): ArmResult {
  if (!fanOut(graph, id, 'parallel')) return fail(`'${id}' is not a parallel step`);
  const taken = parallelBranches(graph, id);
  if (!taken.includes(from)) return fail(`'${id}' has no branch '${from}'`);
  if (from === to) return { ok: true, graph };
  if (!isIdentifier(to)) return fail('branch names are identifiers: letters, digits and _');
  if (taken.includes(to)) return fail(`'${id}' already has a branch '${to}'`);
  const edges = graph.edges.map((edge) =>
    edge.source === id && edge.sourceHandle === from ? makeEdge(edge.source, edge.target, to) : edge,
  );
  return { ok: true, graph: { ...graph, edges } };
}

export function removeParallelBranch(graph: FlowGraph, id: string, name: string): ArmResult {
  if (!fanOut(graph, id, 'parallel')) return fail(`'${id}' is not a parallel step`);
  if (!parallelBranches(graph, id).includes(name)) return fail(`'${id}' has no branch '${name}'`);
  const join = joinNodeId(id);
  let next = dropArm(graph, id, name, join);
  if (parallelBranches(next, id).length === 0) next = { ...next, edges: [...next.edges, makeEdge(id, join)] };
  return { ok: true, graph: next };
}

function cases(graph: FlowGraph, id: string): Json[] {
  const config = fanOut(graph, id, 'branch')?.config;
  return Array.isArray(config?.cases) ? config.cases : [];
}

function withCases(graph: FlowGraph, id: string, next: Json[]): FlowGraph {
  return {
    ...graph,
    nodes: graph.nodes.map((node) => (node.id === id ? { ...node, config: { ...node.config, cases: next } } : node)),
  };
}

export function addBranchCase(graph: FlowGraph, id: string, when = '=true'): ArmResult {
  if (!fanOut(graph, id, 'branch')) return fail(`'${id}' is not a branch step`);
  const list = cases(graph, id);
  const next = withCases(graph, id, [...list, { when }]);
  return {
    ok: true,
    graph: { ...next, edges: [...next.edges, makeEdge(id, mergeNodeId(id), caseHandle(list.length))] },
  };
}

/** Removes case `index` and its arm; later cases move up (`case-3` becomes `case-2`). */
export function removeBranchCase(graph: FlowGraph, id: string, index: number): ArmResult {
  if (!fanOut(graph, id, 'branch')) return fail(`'${id}' is not a branch step`);
  const list = cases(graph, id);
  if (index < 0 || index >= list.length) return fail(`'${id}' has no case ${index}`);
  if (list.length <= 1) return fail('a branch needs at least one case');
  const dropped = dropArm(graph, id, caseHandle(index), mergeNodeId(id));
  const edges = dropped.edges.map((edge) => {
    const match = edge.source === id ? /^case-(\d+)$/.exec(edge.sourceHandle ?? '') : null;
    const n = match ? Number(match[1]) : -1;
    return n > index ? makeEdge(edge.source, edge.target, caseHandle(n - 1)) : edge;
  });
  return {
    ok: true,
    graph: withCases(
      { ...dropped, edges },
      id,
      list.filter((_, i) => i !== index),
    ),
  };
}

export function hasElse(graph: FlowGraph, id: string): boolean {
  return graph.edges.some((edge) => edge.source === id && edge.sourceHandle === ELSE_HANDLE);
}

export function addElse(graph: FlowGraph, id: string): ArmResult {
  if (!fanOut(graph, id, 'branch')) return fail(`'${id}' is not a branch step`);
  if (hasElse(graph, id)) return fail(`'${id}' already has an else arm`);
  return { ok: true, graph: { ...graph, edges: [...graph.edges, makeEdge(id, mergeNodeId(id), ELSE_HANDLE)] } };
}

export function removeElse(graph: FlowGraph, id: string): ArmResult {
  if (!fanOut(graph, id, 'branch')) return fail(`'${id}' is not a branch step`);
  if (!hasElse(graph, id)) return fail(`'${id}' has no else arm`);
  return { ok: true, graph: dropArm(graph, id, ELSE_HANDLE, mergeNodeId(id)) };
}
