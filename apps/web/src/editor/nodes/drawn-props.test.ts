/** A node's insides are drawn again only for what they show (id, data, selection). */
import type { NodeProps } from '@xyflow/react';
import { describe, expect, it } from 'vitest';
import type { WeftNode } from '../flow-nodes.ts';
import { sameDrawnProps } from './drawn-props.ts';

const data = {
  node: { id: 's1', kind: 'step', stepType: 'transform', position: { x: 0, y: 0 } },
  handles: [],
} as unknown as WeftNode['data'];
const props = (overrides: Partial<NodeProps<WeftNode>>) =>
  ({
    id: 's1',
    type: 'step',
    data,
    selected: false,
    dragging: false,
    zIndex: 0,
    isConnectable: true,
    positionAbsoluteX: 0,
    positionAbsoluteY: 0,
    ...overrides,
  }) as NodeProps<WeftNode>;

describe('sameDrawnProps', () => {
  it('skips what xyflow changes as it measures and moves a node', () => {
    const before = props({});
    expect(sameDrawnProps(before, props({ width: 180, height: 62 }))).toBe(true);
    expect(sameDrawnProps(before, props({ positionAbsoluteX: 40, positionAbsoluteY: 90, dragging: true }))).toBe(true);
  });

  it('draws again for a new step, another node or a change of selection', () => {
    const before = props({});
    expect(sameDrawnProps(before, props({ data: { ...data } }))).toBe(false);
    expect(sameDrawnProps(before, props({ id: 's2' }))).toBe(false);
    expect(sameDrawnProps(before, props({ selected: true }))).toBe(false);
  });
});
