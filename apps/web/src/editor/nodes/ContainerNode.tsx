/**
 * map / loop: a box that holds its body; the `body` handle starts the body's chain. The fold
 * button hides the body (editor/canvas/collapse.ts). Zoomed far out, the box and its handles
 * only, as a step is drawn there (editor/canvas/far.ts).
 */

import { BODY_HANDLE } from '@weft/engine';
import { Handle, type NodeProps, Position } from '@xyflow/react';
import { memo } from 'react';
import { stepInfo } from '../../graph/step-catalog.ts';
import { useNodeLive, useNodeStatus } from '../../store/editor-hooks.ts';
import { useFar } from '../canvas/far.ts';
import type { WeftNode } from '../flow-nodes.ts';
import { lineClass } from './clipping.ts';
import { sameDrawnProps } from './drawn-props.ts';
import { FoldButton } from './FoldButton.tsx';
import { markClasses, RunMarks } from './RunMarks.tsx';
import { StatusBadge } from './StatusBadge.tsx';

export const ContainerNode = memo(function ContainerNode(props: NodeProps<WeftNode>) {
  return useFar() ? <FarContainerNode {...props} /> : <FullContainerNode {...props} />;
}, sameDrawnProps);

function FarContainerNode({ id, selected }: NodeProps<WeftNode>) {
  const status = useNodeStatus(id);
  return (
    <div
      className={`wf-container status-${status ?? 'idle'}${selected ? ' selected' : ''}`}
      data-testid={`node-${id}`}
      data-status={status ?? 'idle'}
    >
      <Handle type="target" position={Position.Top} />
      <Handle id={BODY_HANDLE} type="source" position={Position.Left} className="body-handle" />
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
}

function FullContainerNode({ id, data, selected }: NodeProps<WeftNode>) {
  const info = stepInfo(data.node.stepType);
  const live = useNodeLive(id);
  const { status, durationMs, problems } = live;
  const marks = markClasses(live);
  const folded = data.collapsed === true;
  return (
    <div
      className={`wf-container status-${status ?? 'idle'}${selected ? ' selected' : ''}${problems ? ' has-problems' : ''}${marks}`}
      data-testid={`node-${id}`}
      data-status={status ?? 'idle'}
    >
      <Handle type="target" position={Position.Top} />
      <div className="wf-node-head">
        <FoldButton id={id} folded={folded} what="body" />
        <span className="wf-icon" aria-hidden="true">
          {info?.icon}
        </span>
        <span className="wf-type">{info?.label}</span>
        <span className={lineClass('wf-id mono', 'id', id)}>{id}</span>
        <StatusBadge status={status} durationMs={durationMs} />
        {problems > 0 ? <span className="problem-badge">{problems}</span> : null}
        {live.reused || live.mark ? <RunMarks reused={live.reused} mark={live.mark} first={live.first} /> : null}
      </div>
      <Handle id={BODY_HANDLE} type="source" position={Position.Left} className="body-handle" title="body" />
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
}
