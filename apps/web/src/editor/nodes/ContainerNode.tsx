/**
 * map / loop: a box that holds its body; the `body` handle starts the body's chain. The fold
 * button hides the body (editor/canvas/collapse.ts).
 */

import { BODY_HANDLE } from '@weft/engine';
import { Handle, type NodeProps, Position } from '@xyflow/react';
import { memo } from 'react';
import { stepInfo } from '../../graph/step-catalog.ts';
import { useNodeDuration, useNodeProblemCount, useNodeQueued, useNodeStatus } from '../../store/editor-hooks.ts';
import { useCollapse } from '../canvas/collapse.ts';
import type { WeftNode } from '../flow-nodes.ts';
import { RunMarks, useMarkClasses } from './RunMarks.tsx';
import { StatusBadge } from './StatusBadge.tsx';

export const ContainerNode = memo(function ContainerNode({ id, data, selected }: NodeProps<WeftNode>) {
  const info = stepInfo(data.node.stepType);
  const queued = useNodeQueued(id);
  const status = useNodeStatus(id) ?? (queued ? 'queued' : null);
  const durationMs = useNodeDuration(id);
  const problems = useNodeProblemCount(id);
  const marks = useMarkClasses(id);
  const { toggle } = useCollapse();
  const folded = data.collapsed === true;
  return (
    <div
      className={`wf-container status-${status ?? 'idle'}${selected ? ' selected' : ''}${problems ? ' has-problems' : ''}${marks}`}
      data-testid={`node-${id}`}
      data-status={status ?? 'idle'}
    >
      <Handle type="target" position={Position.Top} />
      <div className="wf-node-head">
        <button
          type="button"
          className="wf-fold nodrag"
          aria-expanded={!folded}
          aria-label={`${folded ? 'Expand' : 'Collapse'} ${id}`}
          title={folded ? 'Show the body' : 'Fold the body away'}
          onClick={(event) => {
            event.stopPropagation();
            toggle(id);
          }}
        >
          {folded ? '▸' : '▾'}
        </button>
        <span className="wf-icon" aria-hidden="true">
          {info?.icon}
        </span>
        <span className="wf-type">{info?.label}</span>
        <span className="wf-id mono">{id}</span>
        <StatusBadge status={status} durationMs={durationMs} />
        {problems > 0 ? <span className="problem-badge">{problems}</span> : null}
        <RunMarks id={id} />
      </div>
      <Handle id={BODY_HANDLE} type="source" position={Position.Left} className="body-handle" title="body" />
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
});
