/** Node and edge ids of the canvas graph. Step ids are identifiers, so none of these can clash with one. */

/** The flow's entry node. `@` is not allowed in step ids, so a step called `start` cannot clash. */
export const START_NODE_ID = '@start';
/** The flow's exit node. */
export const END_NODE_ID = '@end';

/** Where the arms of branch `branchId` merge again. */
export function mergeNodeId(branchId: string): string {
  return `${branchId}/merge`;
}

/** Where the branches of parallel `parallelId` re-join. */
export function joinNodeId(parallelId: string): string {
  return `${parallelId}/join`;
}

/** A deterministic edge id: `source[:handle]->target`. */
export function edgeId(source: string, target: string, sourceHandle?: string): string {
  return sourceHandle === undefined ? `${source}->${target}` : `${source}:${sourceHandle}->${target}`;
}

/** The out-handle of branch case `index`. */
export function caseHandle(index: number): string {
  return `case-${index}`;
}

export const ELSE_HANDLE = 'else';
export const BODY_HANDLE = 'body';
