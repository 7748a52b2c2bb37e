/** The structural nodes: start/end pills and the merge/join dots where arms meet again. */
import { Handle, type NodeProps, Position } from '@xyflow/react';
import { memo } from 'react';
import { useEditor } from '../../store/editor-hooks.ts';
import type { WeftNode } from '../flow-nodes.ts';
import { sameDrawnProps } from './drawn-props.ts';

export const StartNode = memo(function StartNode(_: NodeProps<WeftNode>) {
  const status = useEditor((state) => (state.run ? 'completed' : null));
  return (
    <div className={`wf-terminal status-${status ?? 'idle'}`} data-testid="node-start">
      Start
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
}, sameDrawnProps);

export const EndNode = memo(function EndNode(_: NodeProps<WeftNode>) {
  const status = useEditor((state) => state.run?.view.status ?? null);
  return (
    <div className={`wf-terminal status-${status ?? 'idle'}`} data-testid="node-end" data-status={status ?? 'idle'}>
      <Handle type="target" position={Position.Top} />
      End
    </div>
  );
}, sameDrawnProps);

export const JunctionNode = memo(function JunctionNode({ data }: NodeProps<WeftNode>) {
  const label = data.node.kind === 'merge' ? 'merge' : 'join';
  return (
    <div className="wf-junction" title={label}>
      <Handle type="target" position={Position.Top} />
      <span aria-hidden="true">{data.node.kind === 'merge' ? '◇' : '⊕'}</span>
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
}, sameDrawnProps);
