/**
 * Whether a node component would draw the same with `next` as with `previous`: Weft's nodes read
 * only `id`, `data` and `selected`. xyflow hands a node new props whenever it is measured or
 * moved (its size, absolute position, `dragging`), none of which it draws — so opening a flow
 * (every node measured) and dragging a node (new positions every frame) do not re-render the
 * insides of every node they touch.
 */
import type { NodeProps } from '@xyflow/react';
import type { WeftNode } from '../flow-nodes.ts';

export function sameDrawnProps(previous: NodeProps<WeftNode>, next: NodeProps<WeftNode>): boolean {
  return previous.id === next.id && previous.data === next.data && previous.selected === next.selected;
}
