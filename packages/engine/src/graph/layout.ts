/**
 * A small deterministic top-to-bottom auto-layout for flows without saved positions. Children
 * of a container (map/loop) are positioned relative to the container, as @xyflow/react expects.
 */
import { childLists, manifestOf, type Step } from '../steps/registry.ts';

/**
 * A step node's box, the one definition both layouts use: this column layout and the editor's
 * elk layout (apps/web/src/graph/layout.ts) for a node not measured yet. It is what the editor
 * draws: `.wf-node` in apps/web/src/styles.css is 180px wide, and its head row and id ~60px tall.
 */
export const NODE_WIDTH = 180;
export const NODE_HEIGHT = 60;
export const GAP_X = 40;
export const GAP_Y = 50;
/** Padding inside a container, and the height of its title bar. */
export const CONTAINER_PADDING = 30;
export const CONTAINER_HEADER = 50;

export interface Size {
  width: number;
  height: number;
}

/** The arms of a fan-out step (branch cases + else, parallel branches), in order. */
export function fanOutArms(step: Step): readonly (readonly Step[])[] {
  return manifestOf(step.type).editor.shape === 'fan-out' ? childLists(step).map((list) => list.steps) : [];
}

/** The box a container node is drawn as. */
export function containerSize(body: readonly Step[]): Size {
  const inner = listSize(body);
  return {
    width: Math.max(NODE_WIDTH, inner.width) + 2 * CONTAINER_PADDING,
    height: CONTAINER_HEADER + Math.max(inner.height, NODE_HEIGHT / 2) + CONTAINER_PADDING,
  };
}

/** The box a step takes in its column, including a fan-out's arms and merge/join node. */
export function stepSize(step: Step): Size {
  const shape = manifestOf(step.type).editor.shape;
  if (shape === 'container') return containerSize(childLists(step)[0]?.steps ?? []);
  if (shape === 'fan-out') {
    const arms = fanOutArms(step).map(listSize);
    const armsWidth = arms.reduce((sum, arm) => sum + arm.width, 0) + GAP_X * Math.max(0, arms.length - 1);
    const armsHeight = Math.max(0, ...arms.map((arm) => arm.height));
    return {
      width: Math.max(NODE_WIDTH, armsWidth),
      height: NODE_HEIGHT + GAP_Y + (armsHeight > 0 ? armsHeight + GAP_Y : 0) + NODE_HEIGHT,
    };
  }
  // Room below nodes that grow while a run is live: an approval shows its decision card, an llm
  // step its streamed text.
  return { width: NODE_WIDTH, height: TALL_STEPS[step.type] ?? NODE_HEIGHT };
}

const TALL_STEPS: Partial<Record<Step['type'], number>> = { approval: 170, llm: 110 };

export function listSize(steps: readonly Step[]): Size {
  if (steps.length === 0) return { width: NODE_WIDTH, height: 0 };
  const sizes = steps.map(stepSize);
  return {
    width: Math.max(...sizes.map((size) => size.width)),
    height: sizes.reduce((sum, size) => sum + size.height, 0) + GAP_Y * (steps.length - 1),
  };
}
