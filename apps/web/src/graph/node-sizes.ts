/** The size of a node xyflow has not measured, shared by the layouts. */
import { type GraphNode, NODE_HEIGHT, NODE_WIDTH } from '@weft/engine';

export type Size = { width: number; height: number };

/**
 * The size of a node xyflow has not measured (it measures only what it has rendered), as
 * styles.css draws it. A step is the engine's node size, which its column layout uses too:
 * `.wf-node` is 180px wide and about 60px tall (a model line or live output makes it taller,
 * and then it is measured). Start/end pills and merge/join dots exist only in the editor.
 */
export const DEFAULT_SIZE: Record<GraphNode['kind'], Size> = {
  step: { width: NODE_WIDTH, height: NODE_HEIGHT },
  start: { width: 68, height: 27 },
  end: { width: 60, height: 27 },
  merge: { width: 28, height: 28 },
  join: { width: 28, height: 28 },
};
