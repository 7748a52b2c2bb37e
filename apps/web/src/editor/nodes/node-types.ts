/** At module scope so xyflow never sees a new object (which would remount every node). */
import type { NodeTypes } from '@xyflow/react';
import { ContainerNode } from './ContainerNode.tsx';
import { EndNode, JunctionNode, StartNode } from './SmallNodes.tsx';
import { StepNode } from './StepNode.tsx';

export const nodeTypes: NodeTypes = {
  step: StepNode,
  container: ContainerNode,
  start: StartNode,
  end: EndNode,
  merge: JunctionNode,
  join: JunctionNode,
};
