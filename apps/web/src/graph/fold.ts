/**
 * Folding, the canvas's view state (editor/canvas/collapse.ts): a folded map/loop hides what it
 * holds, at any depth; a folded branch/parallel hides its arms — every step between it and its
 * merge/join node — and is drawn joined to that node by one edge (a bridge) saying how many
 * steps it stands for. The flow itself is unchanged.
 */
import { type FlowGraph, type GraphNode, joinNodeId, mergeNodeId } from '@weft/engine';
import { armNodes, indexGraph } from './arms.ts';
import { isContainerType } from './step-catalog.ts';

export interface Bridge {
  id: string;
  source: string;
  target: string;
  /** A handle the fan-out has (it has no default one while it has arms). */
  sourceHandle: string;
  /** The steps it stands for. */
  steps: number;
}

export interface Folded {
  hidden: ReadonlySet<string>;
  bridges: readonly Bridge[];
}

const NOTHING: Folded = { hidden: new Set(), bridges: [] };

/** The node a fan-out's arms meet again at, for a branch or parallel step; else undefined. */
export function exitOf(node: GraphNode): string | undefined {
  if (node.kind !== 'step') return undefined;
  if (node.stepType === 'branch') return mergeNodeId(node.id);
  if (node.stepType === 'parallel') return joinNodeId(node.id);
  return undefined;
}

/** Whether `node` folds: a container, or a fan-out. */
export function canFold(node: GraphNode): boolean {
  return node.kind === 'step' && (isContainerType(node.stepType) || exitOf(node) !== undefined);
}

export function foldGraph(graph: FlowGraph, collapsed: ReadonlySet<string>): Folded {
  if (collapsed.size === 0) return NOTHING;
  const index = indexGraph(graph);
  const { byId, edgesFrom } = index;
  const childrenOf = new Map<string, string[]>();
  for (const node of graph.nodes) {
    if (node.parentId === undefined) continue;
    const list = childrenOf.get(node.parentId);
    if (list) list.push(node.id);
    else childrenOf.set(node.parentId, [node.id]);
  }
  const hidden = new Set<string>();
  const hideInside = (id: string) => {
    for (const child of childrenOf.get(id) ?? []) {
      if (hidden.has(child)) continue;
      hidden.add(child);
      hideInside(child);
    }
  };
  const bridges: Bridge[] = [];
  for (const id of collapsed) {
    const node = byId.get(id);
    if (!node || !canFold(node)) continue;
    const exit = exitOf(node);
    if (exit === undefined) {
      hideInside(id);
      continue;
    }
    const arms = (edgesFrom.get(id) ?? []).filter((edge) => edge.sourceHandle !== undefined);
    if (arms.length === 0 || !byId.has(exit)) continue;
    // Everything between the arms and the exit; a container's body goes with it (hideInside).
    const inArms = armNodes(index, arms, exit);
    for (const inner of inArms) {
      hidden.add(inner);
      hideInside(inner);
    }
    bridges.push({
      id: `fold:${id}`,
      source: id,
      target: exit,
      sourceHandle: arms[0]!.sourceHandle!,
      steps: inArms.length,
    });
  }
  return { hidden, bridges };
}
