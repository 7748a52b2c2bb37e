/** IR → graph: draws a flow on the canvas (conventions in compile.ts). */
import type { Flow } from '../ir/flow.ts';
import type { Json } from '../json.ts';
import type { FieldSpec } from '../steps/manifest.ts';
import { manifestOf, type Step } from '../steps/registry.ts';
import {
  BODY_HANDLE,
  caseHandle,
  ELSE_HANDLE,
  END_NODE_ID,
  edgeId,
  joinNodeId,
  mergeNodeId,
  START_NODE_ID,
} from './ids.ts';
import {
  CONTAINER_HEADER,
  CONTAINER_PADDING,
  containerSize,
  GAP_X,
  GAP_Y,
  listSize,
  NODE_HEIGHT,
  NODE_WIDTH,
  stepSize,
} from './layout.ts';
import type { FlowGraph, GraphEdge, GraphMeta, GraphNode } from './types.ts';

type Position = { x: number; y: number };

/** The step's fields for its node: all but `id`, `type` and nested step lists (branch cases keep `when`). */
export function stepConfig(step: Step): Record<string, Json> {
  const { id: _id, type: _type, ...rest } = step as unknown as Record<string, Json>;
  for (const [field, spec] of Object.entries(manifestOf(step.type).fields as Record<string, FieldSpec>)) {
    if (spec.kind === 'steps' || spec.kind === 'named-steps') delete rest[field];
    // A case keeps its condition in the node's config; its arm is drawn as an edge.
    if (spec.kind === 'cases' && Array.isArray(rest[field]))
      rest[field] = (rest[field] as Record<string, Json>[]).map(({ steps: _steps, ...branchCase }) => branchCase);
  }
  return rest;
}

function savedPositions(ui: Flow['ui']): Record<string, Position> {
  // Keyed by step ids: no prototype, so a step named `toString` without a saved position lays out.
  const positions: Record<string, Position> = Object.create(null);
  const raw = ui?.positions;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return positions;
  for (const [id, value] of Object.entries(raw as Record<string, unknown>)) {
    const { x, y } = (value ?? {}) as { x?: unknown; y?: unknown };
    if (typeof x === 'number' && typeof y === 'number') positions[id] = { x, y };
  }
  return positions;
}

export function flowToGraph(flow: Flow): FlowGraph {
  const saved = savedPositions(flow.ui);
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];

  const addNode = (node: Omit<GraphNode, 'position'>, auto: Position): void => {
    nodes.push({ ...node, position: saved[node.id] ?? auto });
  };
  const connect = (source: string, target: string, sourceHandle?: string): void => {
    edges.push({ id: edgeId(source, target, sourceHandle), source, target, ...(sourceHandle ? { sourceHandle } : {}) });
  };
  const within = (parent: string | undefined) => (parent === undefined ? {} : { parentId: parent });

  /** Draws `steps` as a chain in a column; returns the chain's first node and its exit node. */
  const emitList = (
    steps: readonly Step[],
    left: number,
    top: number,
    width: number,
    parent: string | undefined,
  ): { entry?: string; exit?: string } => {
    let y = top;
    let entry: string | undefined;
    let exit: string | undefined;
    for (const step of steps) {
      const size = stepSize(step);
      const stepExit = emitStep(step, left + (width - size.width) / 2, y, parent);
      if (exit === undefined) entry = step.id;
      else connect(exit, step.id);
      exit = stepExit;
      y += size.height + GAP_Y;
    }
    return { ...(entry === undefined ? {} : { entry }), ...(exit === undefined ? {} : { exit }) };
  };

  const emitStep = (step: Step, left: number, top: number, parent: string | undefined): string => {
    const size = stepSize(step);
    const base = {
      id: step.id,
      kind: 'step' as const,
      stepType: step.type,
      config: stepConfig(step),
      ...within(parent),
    };
    if (step.type === 'map' || step.type === 'loop') {
      addNode({ ...base, size: containerSize(step.steps) }, { x: left, y: top });
      const inner = size.width - 2 * CONTAINER_PADDING;
      const body = emitList(step.steps, CONTAINER_PADDING, CONTAINER_HEADER, inner, step.id);
      if (body.entry !== undefined) connect(step.id, body.entry, BODY_HANDLE);
      return step.id;
    }
    const nodeX = left + (size.width - NODE_WIDTH) / 2;
    addNode(base, { x: nodeX, y: top });
    if (step.type !== 'branch' && step.type !== 'parallel') return step.id;

    const arms: { handle: string; steps: readonly Step[] }[] =
      step.type === 'branch'
        ? [
            ...step.cases.map((branchCase, index) => ({ handle: caseHandle(index), steps: branchCase.steps })),
            ...(step.else ? [{ handle: ELSE_HANDLE, steps: step.else }] : []),
          ]
        : Object.entries(step.branches).map(([name, steps]) => ({ handle: name, steps }));
    const exitId = step.type === 'branch' ? mergeNodeId(step.id) : joinNodeId(step.id);
    const armSizes = arms.map((arm) => listSize(arm.steps));
    const armsWidth = armSizes.reduce((sum, arm) => sum + arm.width, 0) + GAP_X * Math.max(0, arms.length - 1);
    let armX = left + (size.width - armsWidth) / 2;
    arms.forEach((arm, index) => {
      const armWidth = armSizes[index]?.width ?? NODE_WIDTH;
      const chain = emitList(arm.steps, armX, top + NODE_HEIGHT + GAP_Y, armWidth, parent);
      if (chain.entry !== undefined && chain.exit !== undefined) {
        connect(step.id, chain.entry, arm.handle);
        connect(chain.exit, exitId);
      } else {
        connect(step.id, exitId, arm.handle);
      }
      armX += armWidth + GAP_X;
    });
    if (arms.length === 0) connect(step.id, exitId);
    addNode(
      { id: exitId, kind: step.type === 'branch' ? 'merge' : 'join', ...within(parent) },
      { x: nodeX, y: top + size.height - NODE_HEIGHT },
    );
    return exitId;
  };

  const width = listSize(flow.steps).width;
  const centre = (width - NODE_WIDTH) / 2;
  addNode({ id: START_NODE_ID, kind: 'start' }, { x: centre, y: 0 });
  const chain = emitList(flow.steps, 0, NODE_HEIGHT + GAP_Y, width, undefined);
  const bottom = NODE_HEIGHT + GAP_Y + listSize(flow.steps).height + (flow.steps.length > 0 ? GAP_Y : 0);
  addNode({ id: END_NODE_ID, kind: 'end' }, { x: centre, y: bottom });
  if (chain.entry !== undefined && chain.exit !== undefined) {
    connect(START_NODE_ID, chain.entry);
    connect(chain.exit, END_NODE_ID);
  } else {
    connect(START_NODE_ID, END_NODE_ID);
  }

  return { meta: flowMeta(flow), nodes, edges };
}

function flowMeta(flow: Flow): GraphMeta {
  const meta: GraphMeta = { irVersion: flow.irVersion, id: flow.id, name: flow.name };
  if (flow.description !== undefined) meta.description = flow.description;
  if (flow.version !== undefined) meta.version = flow.version;
  if (flow.input !== undefined) meta.input = flow.input as Record<string, Json>;
  if (flow.output !== undefined) meta.output = flow.output as Json;
  if (flow.tools !== undefined) meta.tools = flow.tools as unknown as Record<string, Json>;
  return meta;
}
