/**
 * The canvas compiler: `flowToGraph` draws a flow as a graph, `graphToFlow` compiles a graph
 * back into structured IR and reports every problem pinned to the node at fault (never throws).
 *
 * Conventions (see types.ts for the shape):
 * - node ids: step nodes = step ids; `<branchId>/merge`, `<parallelId>/join`; `@start`, `@end`.
 * - edges between steps in sequence have no handle. A branch's arms leave it by `case-N` / `else`
 *   and end with an edge into its merge node (an empty arm is an edge straight to the merge node);
 *   a branch without `else` has no `else` edge. A parallel's branches leave it by handles named
 *   after the branches (in edge order) and end at its join node; a parallel with no branches has
 *   one plain edge to its join node. A map/loop body starts at the container's `body` edge, its
 *   nodes carry `parentId` = the container, and the body's last node has no outgoing edge. The
 *   step after a fan-out follows its merge/join node; the step after a container follows the
 *   container node itself.
 * - positions of a container's children are relative to the container (as @xyflow/react expects).
 */

export { type GraphToFlowOptions, type GraphToFlowResult, graphToFlow } from './to-flow.ts';
export { flowToGraph, stepConfig } from './to-graph.ts';
