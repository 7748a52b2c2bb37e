/**
 * The canvas model: the editor draws a graph, the engine runs structured IR. `flowToGraph` and
 * `graphToFlow` (compile.ts) convert between them, so a flow round-trips through the editor
 * unchanged (up to `ui`). Framework-free: the web app maps these to @xyflow/react nodes.
 *
 * Shape of the graph:
 * - One `start` node (id `@start`) and one `end` node (id `@end`: `@` cannot occur in a step id, so a
 *   step called `start` cannot clash); steps in sequence are chained by edges.
 * - `branch`: the branch node has one out-handle per case (`case-0`, `case-1`, …) plus `else`;
 *   its arms merge again at the branch's `merge` node (id `<branchId>/merge`).
 * - `parallel`: one out-handle per branch name; the branches re-join at its `join` node
 *   (id `<parallelId>/join`).
 * - `map` / `loop`: container nodes; their body steps are nodes with `parentId` = the container,
 *   chained from the container's inner `start` handle (`body`) — see compile.ts for details.
 */
import type { Json } from '../json.ts';
import type { StepType } from '../steps/registry.ts';

export type GraphNodeKind = 'start' | 'end' | 'step' | 'merge' | 'join';

export interface GraphNode {
  id: string;
  kind: GraphNodeKind;
  /** For `step` nodes: the step type and its config (every field but `id`, `type` and nested step lists). */
  stepType?: StepType;
  config?: Record<string, Json>;
  /** The container (map/loop) this node sits in, if any. */
  parentId?: string;
  /** Relative to the parent container when `parentId` is set (as @xyflow/react expects). */
  position: { x: number; y: number };
  /** Auto-layout size of container (map/loop) nodes, sized around their children. */
  size?: { width: number; height: number };
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  /** Which out-handle of the source: `case-N`/`else` (branch), a branch name (parallel), `body` (map/loop start of body). */
  sourceHandle?: string;
}

/** Flow-level fields that are not steps. */
export interface GraphMeta {
  irVersion: 1;
  id: string;
  name: string;
  description?: string;
  version?: number;
  input?: Record<string, Json>;
  output?: Json;
  tools?: Record<string, Json>;
}

export interface FlowGraph {
  meta: GraphMeta;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** A problem that stops a graph from compiling, pinned to the node (or edge) at fault. */
export interface GraphIssue {
  nodeId: string | null;
  edgeId?: string;
  message: string;
}
