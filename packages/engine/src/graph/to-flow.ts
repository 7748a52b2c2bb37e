/** Graph → IR: compiles a canvas graph into structured IR (conventions in compile.ts). */
import type { Flow } from '../ir/flow.ts';
import type { StepShape } from '../steps/manifest.ts';
import { isStepType, manifestOf, STEP_TYPES, type Step, type StepType } from '../steps/registry.ts';
import { type ValidateOptions, validateFlow } from '../validate/validate.ts';
import { BODY_HANDLE, caseHandle, ELSE_HANDLE, END_NODE_ID, joinNodeId, mergeNodeId } from './ids.ts';
import type { FlowGraph, GraphEdge, GraphIssue, GraphNode } from './types.ts';

type Position = { x: number; y: number };

export type GraphToFlowResult = { ok: true; flow: Flow } | { ok: false; errors: GraphIssue[] };

const STEP_TYPE_SET: ReadonlySet<string> = new Set(STEP_TYPES);
/** How the canvas draws a node's step type (its manifest's shape); undefined for other nodes. */
const shapeOf = (node: GraphNode | undefined): StepShape | undefined =>
  node?.kind === 'step' && isStepType(node.stepType) ? manifestOf(node.stepType).editor.shape : undefined;
const isContainer = (node: GraphNode | undefined): boolean => shapeOf(node) === 'container';
const isFanOut = (node: GraphNode | undefined): boolean => shapeOf(node) === 'fan-out';
const label = (id: string): string => `'${id}'`;

/** What `graphToFlow` checks besides the graph's structure. */
export interface GraphToFlowOptions extends ValidateOptions {
  /**
   * Compile the structure only, without validating the document: for a part of a flow (the
   * editor's clipboard), whose steps may refer to steps left behind.
   */
  structureOnly?: boolean;
}

/** Compiles the canvas graph into a flow; `options` go to `validateFlow` (e.g. the host's tool names). */
export function graphToFlow(graph: FlowGraph, options: GraphToFlowOptions = {}): GraphToFlowResult {
  const issues: GraphIssue[] = [];
  const issue = (nodeId: string | null, message: string, edge?: string): void => {
    issues.push({ nodeId, message, ...(edge === undefined ? {} : { edgeId: edge }) });
  };

  // -- nodes -----------------------------------------------------------------------------------
  const byId = new Map<string, GraphNode>();
  for (const node of graph.nodes) {
    if (byId.has(node.id)) issue(node.id, `two nodes have the id ${label(node.id)}`);
    else byId.set(node.id, node);
  }
  const starts = graph.nodes.filter((node) => node.kind === 'start');
  const ends = graph.nodes.filter((node) => node.kind === 'end');
  if (starts.length === 0) issue(null, 'the graph has no start node');
  if (ends.length === 0) issue(null, 'the graph has no end node');
  for (const extra of starts.slice(1)) issue(extra.id, 'the graph has more than one start node');
  for (const extra of ends.slice(1)) issue(extra.id, 'the graph has more than one end node');
  for (const node of byId.values()) {
    if (node.kind === 'step' && (node.stepType === undefined || !STEP_TYPE_SET.has(node.stepType))) {
      issue(node.id, `node ${label(node.id)} has no known step type (got ${String(node.stepType)})`);
    }
    if (node.parentId !== undefined && !isContainer(byId.get(node.parentId))) {
      issue(node.id, `node ${label(node.id)} sits in ${label(node.parentId)}, which is not a map or loop`);
    }
  }

  // -- edges -----------------------------------------------------------------------------------
  const out = new Map<string, GraphEdge[]>();
  const incoming = new Map<string, number>();
  const edgeIds = new Set<string>();
  for (const edge of graph.edges) {
    if (edgeIds.has(edge.id)) issue(edge.source, `two edges have the id ${label(edge.id)}`, edge.id);
    edgeIds.add(edge.id);
    const source = byId.get(edge.source);
    const target = byId.get(edge.target);
    if (!source || !target) {
      const missing = [!source ? `source ${label(edge.source)}` : '', !target ? `target ${label(edge.target)}` : '']
        .filter(Boolean)
        .join(' and ');
      issue(
        source ? source.id : target ? target.id : null,
        `dangling edge ${label(edge.id)}: no ${missing} node`,
        edge.id,
      );
      continue;
    }
    if (target.kind === 'start') issue(target.id, `edge ${label(edge.id)} leads into the start node`, edge.id);
    if (source.kind === 'end') issue(source.id, `edge ${label(edge.id)} leaves the end node`, edge.id);
    const handle = edge.sourceHandle;
    if (handle !== undefined && !isFanOut(source) && !(isContainer(source) && handle === BODY_HANDLE)) {
      issue(source.id, `node ${label(source.id)} has no out-handle ${label(handle)}`, edge.id);
      continue;
    }
    if (isContainer(source) && handle !== undefined && handle !== BODY_HANDLE) {
      issue(source.id, `node ${label(source.id)} has no out-handle ${label(handle)}`, edge.id);
      continue;
    }
    const expectedParent = isContainer(source) && handle === BODY_HANDLE ? source.id : source.parentId;
    if (target.parentId !== expectedParent) {
      issue(
        target.id,
        `edge ${label(edge.id)} from ${label(source.id)} to ${label(target.id)} crosses a container boundary`,
        edge.id,
      );
      continue;
    }
    const list = out.get(source.id) ?? [];
    list.push(edge);
    out.set(source.id, list);
    incoming.set(target.id, (incoming.get(target.id) ?? 0) + 1);
  }
  const plainOut = (id: string): GraphEdge[] => (out.get(id) ?? []).filter((edge) => edge.sourceHandle === undefined);
  const handled = (id: string, handle: string): GraphEdge[] =>
    (out.get(id) ?? []).filter((edge) => edge.sourceHandle === handle);

  // -- walk ------------------------------------------------------------------------------------
  const visited = new Set<string>();
  const open = new Set<string>();
  const start = starts[0];
  const end = ends[0];

  /**
   * Follows a chain from `first` until `terminal` (a merge/join node, the end node, or null: a
   * container body, which ends at a node without an outgoing edge). `owner` is the fan-out or
   * container whose arm/body this is.
   */
  const walk = (first: string, terminal: string | null, parent: string | undefined, owner: string | null): Step[] => {
    const steps: Step[] = [];
    const mine: string[] = [];
    let current = first;
    let previous: string | null = owner;
    for (;;) {
      if (current === terminal) break;
      const node = byId.get(current);
      if (!node) break;
      if (node.kind === 'end' || node.kind === 'merge' || node.kind === 'join' || node.kind === 'start') {
        if (node.kind === 'start') {
          // Reported as an edge into the start node.
        } else if (owner !== null && isFanOut(byId.get(owner))) {
          issue(
            owner,
            `an arm of ${label(owner)} reaches ${label(node.id)} without re-joining at ${label(terminal ?? '')}`,
          );
        } else if (node.kind !== 'end' || terminal !== END_NODE_ID) {
          issue(node.id, `${label(node.id)} is reached from ${label(previous ?? '')} outside its own fan-out`);
        }
        break;
      }
      if (visited.has(node.id)) {
        if (open.has(node.id))
          issue(node.id, `cycle outside a loop: ${label(previous ?? '')} leads back to ${label(node.id)} (use a loop)`);
        else
          issue(
            node.id,
            `${label(node.id)} is reached from more than one place (arms must re-join at their merge/join node)`,
          );
        break;
      }
      visited.add(node.id);
      open.add(node.id);
      mine.push(node.id);
      const built = buildStep(node, parent);
      if (built) steps.push(built.step);
      const exitId = built?.exit ?? node.id;
      const exitNode = byId.get(exitId);
      if (!exitNode) break;
      const next = plainOut(exitId);
      if (next.length === 0) {
        if (terminal !== null) {
          const what =
            owner !== null && isFanOut(byId.get(owner))
              ? `this arm of ${label(owner)} never re-joins at ${label(terminal)}`
              : 'the flow never reaches the end';
          issue(exitId, `${label(exitId)} has no outgoing edge: ${what}`);
        }
        break;
      }
      if (next.length > 1) {
        issue(exitId, `${label(exitId)} has ${next.length} outgoing edges where one is expected`, next[1]?.id);
      }
      previous = exitId;
      current = next[0]?.target ?? '';
    }
    for (const id of mine) open.delete(id);
    return steps;
  };

  /** The step of `node` (arms and bodies walked), and the node its successor edge leaves from. */
  const buildStep = (node: GraphNode, parent: string | undefined): { step: Step; exit: string } | undefined => {
    if (node.kind !== 'step' || node.stepType === undefined || !STEP_TYPE_SET.has(node.stepType)) return undefined;
    const type: StepType = node.stepType;
    const config = { ...(node.config ?? {}) };
    const record: Record<string, unknown> = { id: node.id, type, ...config };
    const edgesOut = out.get(node.id) ?? [];

    if (type === 'map' || type === 'loop') {
      const body = handled(node.id, BODY_HANDLE);
      if (body.length > 1) issue(node.id, `${label(node.id)} has ${body.length} body edges where one is expected`);
      const first = body[0];
      record.steps = first ? walk(first.target, null, node.id, node.id) : [];
      return { step: record as unknown as Step, exit: node.id };
    }
    if (type !== 'branch' && type !== 'parallel') return { step: record as unknown as Step, exit: node.id };

    const exitId = type === 'branch' ? mergeNodeId(node.id) : joinNodeId(node.id);
    const exitKind = type === 'branch' ? 'merge' : 'join';
    const exitNode = byId.get(exitId);
    if (!exitNode || exitNode.kind !== exitKind) {
      issue(node.id, `${type} ${label(node.id)} has no ${exitKind} node ${label(exitId)}`);
    } else if (exitNode.parentId !== node.parentId) {
      issue(exitId, `${label(exitId)} is not in the same container as ${label(node.id)}`);
    }
    const arm = (edges: GraphEdge[], what: string): Step[] => {
      if (edges.length > 1)
        issue(node.id, `${what} of ${label(node.id)} has ${edges.length} edges where one is expected`);
      const first = edges[0];
      return first ? walk(first.target, exitId, parent, node.id) : [];
    };

    if (type === 'branch') {
      const cases = Array.isArray(config.cases) ? config.cases : [];
      if (cases.length === 0) issue(node.id, `branch ${label(node.id)} has no cases`);
      const known = new Set([ELSE_HANDLE, ...cases.map((_, index) => caseHandle(index))]);
      for (const edge of edgesOut) {
        if (edge.sourceHandle === undefined)
          issue(node.id, `branch ${label(node.id)} has an edge without a case handle`, edge.id);
        else if (!known.has(edge.sourceHandle))
          issue(node.id, `branch ${label(node.id)} has no case for handle ${label(edge.sourceHandle)}`, edge.id);
      }
      record.cases = cases.map((branchCase, index) => {
        const edges = handled(node.id, caseHandle(index));
        if (edges.length === 0) issue(node.id, `case ${index} of branch ${label(node.id)} has no arm`);
        const body = typeof branchCase === 'object' && branchCase !== null ? branchCase : {};
        return { ...body, steps: arm(edges, `case ${index}`) };
      });
      const elseEdges = handled(node.id, ELSE_HANDLE);
      if (elseEdges.length > 0) record.else = arm(elseEdges, 'the else arm');
    } else {
      const branches: Record<string, Step[]> = {};
      const names: string[] = [];
      for (const edge of edgesOut) {
        if (edge.sourceHandle === undefined) {
          if (edge.target !== exitId || edgesOut.length > 1)
            issue(node.id, `parallel ${label(node.id)} has an edge without a branch name`, edge.id);
        } else if (!names.includes(edge.sourceHandle)) names.push(edge.sourceHandle);
      }
      for (const name of names) branches[name] = arm(handled(node.id, name), `branch ${label(name)}`);
      record.branches = branches;
    }
    if (exitNode) {
      if (visited.has(exitId)) issue(exitId, `${label(exitId)} is reached more than once`);
      visited.add(exitId);
    }
    return { step: record as unknown as Step, exit: exitId };
  };

  let steps: Step[] = [];
  if (start && end) {
    visited.add(start.id);
    const first = plainOut(start.id);
    if (first.length === 0) issue(start.id, 'the start node has no outgoing edge');
    if (first.length > 1) issue(start.id, `the start node has ${first.length} outgoing edges where one is expected`);
    const head = first[0];
    if (head) {
      if (head.target === end.id) visited.add(end.id);
      else steps = walk(head.target, end.id, undefined, null);
    }
    if ((incoming.get(end.id) ?? 0) > 0 && issues.length === 0) visited.add(end.id);
  }
  for (const node of byId.values()) {
    if (visited.has(node.id) || node.kind === 'start') continue;
    if (node.kind === 'end') {
      if (start && issues.length === 0) issue(node.id, 'the end node is not reachable from the start');
      continue;
    }
    if ((incoming.get(node.id) ?? 0) === 0) issue(node.id, `${label(node.id)} has no incoming edge (unreachable)`);
    else issue(node.id, `${label(node.id)} is not reachable from the start`);
  }
  if (issues.length > 0) return { ok: false, errors: issues };

  // -- the flow --------------------------------------------------------------------------------
  const { meta } = graph;
  const flow: Record<string, unknown> = { irVersion: meta.irVersion, id: meta.id, name: meta.name };
  if (meta.description !== undefined) flow.description = meta.description;
  if (meta.version !== undefined) flow.version = meta.version;
  if (meta.input !== undefined) flow.input = meta.input;
  flow.steps = steps;
  if (meta.output !== undefined) flow.output = meta.output;
  if (meta.tools !== undefined) flow.tools = meta.tools;
  const positions: Record<string, Position> = Object.create(null);
  for (const node of graph.nodes) positions[node.id] = { x: node.position.x, y: node.position.y };
  flow.ui = { positions };

  if (options.structureOnly) return { ok: true, flow: flow as unknown as Flow };
  const validated = validateFlow(flow, options);
  if (!validated.ok) {
    return {
      ok: false,
      errors: validated.errors.map((error) => ({
        nodeId: error.stepId !== null && byId.has(error.stepId) ? error.stepId : null,
        message: `${error.path}: ${error.message}`,
      })),
    };
  }
  // The flow as built, not the parsed one: parsing fills in defaults, which would not round-trip.
  return { ok: true, flow: flow as unknown as Flow };
}
