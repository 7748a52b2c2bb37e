/**
 * A step on the canvas: icon, type, id, model (mock marked), live status (queued while the run has
 * not reached it) with its duration once done, an llm's tool calls and streamed text, approval.
 * Zoomed far out, a light box instead (editor/canvas/far.ts).
 */
import { Handle, type NodeProps, Position } from '@xyflow/react';
import { memo } from 'react';
import { stepInfo } from '../../graph/step-catalog.ts';
import { useNodeLive, useNodeStatus } from '../../store/editor-hooks.ts';
import { useFar } from '../canvas/far.ts';
import type { WeftNode } from '../flow-nodes.ts';
import { ApprovalButtons } from './ApprovalButtons.tsx';
import { lineClass, showsRunContent } from './clipping.ts';
import { sameDrawnProps } from './drawn-props.ts';
import { FoldButton } from './FoldButton.tsx';
import { ModelTag } from './ModelTag.tsx';
import { OutHandles } from './OutHandles.tsx';
import { markClasses, RunMarks } from './RunMarks.tsx';
import { StatusBadge, ToolCalls } from './StatusBadge.tsx';

export const StepNode = memo(function StepNode(props: NodeProps<WeftNode>) {
  return useFar() ? <FarStepNode {...props} /> : <FullStepNode {...props} />;
}, sameDrawnProps);

/** Zoomed far out: the box, its status colour and its handles (edges still attach), no text. */
function FarStepNode({ id, data, selected }: NodeProps<WeftNode>) {
  const status = useNodeStatus(id);
  return (
    <div
      className={`wf-node wf-step wf-far status-${status ?? 'idle'}${selected ? ' selected' : ''}`}
      data-testid={`node-${id}`}
      data-status={status ?? 'idle'}
      data-step-type={data.node.stepType}
    >
      <Handle type="target" position={Position.Top} />
      <OutHandles handles={data.handles} labels={false} />
    </div>
  );
}

function FullStepNode({ id, data, selected }: NodeProps<WeftNode>) {
  const { node, handles } = data;
  const info = stepInfo(node.stepType);
  const live = useNodeLive(id);
  const { status, durationMs, toolCalls, text, waiting, problems } = live;
  const marks = markClasses(live);
  const model = typeof node.config?.model === 'string' ? node.config.model : null;
  // A branch or parallel with arms folds them away (graph/fold.ts).
  const fanOut = handles.length > 0 && (node.stepType === 'branch' || node.stepType === 'parallel');
  return (
    <div
      className={`wf-node wf-step status-${status ?? 'idle'}${selected ? ' selected' : ''}${problems ? ' has-problems' : ''}${marks}${showsRunContent(live) ? ' clip' : ''}`}
      data-testid={`node-${id}`}
      data-status={status ?? 'idle'}
      data-step-type={node.stepType}
    >
      <Handle type="target" position={Position.Top} />
      <div className="wf-node-head">
        {fanOut ? <FoldButton id={id} folded={data.collapsed === true} what="arms" /> : null}
        <span className="wf-icon" aria-hidden="true">
          {info?.icon ?? '?'}
        </span>
        <span className="wf-type">{info?.label ?? node.stepType}</span>
        <StatusBadge status={status} durationMs={durationMs} />
        {problems > 0 ? (
          <span className="problem-badge" title={`${problems} problem(s)`}>
            {problems}
          </span>
        ) : null}
      </div>
      <div className={lineClass('wf-id mono', 'id', id)}>{id}</div>
      {live.reused || live.mark ? <RunMarks reused={live.reused} mark={live.mark} first={live.first} /> : null}
      {model ? <ModelTag model={model} /> : null}
      <ToolCalls calls={toolCalls} />
      {text ? <div className="wf-text">{text.length > 160 ? `…${text.slice(-160)}` : text}</div> : null}
      {waiting ? <ApprovalButtons stepId={waiting} /> : null}
      <OutHandles handles={handles} />
    </div>
  );
}
