import type { StepStatus } from '@weft/engine';
import { memo } from 'react';
import { stepInfo } from '../../graph/step-catalog.ts';
import { formatDuration } from '../../store/run-status.ts';

/** A node's live status; `queued` is a step the active run has not reached yet. */
export type NodeStatus = StepStatus | 'queued';

const LABEL: Record<NodeStatus, string> = {
  queued: 'queued',
  running: 'running',
  waiting: 'waiting',
  retrying: 'retrying',
  completed: 'done',
  failed: 'failed',
};

export const StatusBadge = memo(function StatusBadge({
  status,
  durationMs = null,
}: {
  status: NodeStatus | null;
  durationMs?: number | null;
}) {
  if (!status) return null;
  return (
    <>
      <span className={`status-badge status-${status}`} data-status={status}>
        {LABEL[status]}
      </span>
      {durationMs !== null ? (
        <span className="wf-duration mono" data-testid="node-duration" title="Duration">
          {formatDuration(durationMs)}
        </span>
      ) : null}
    </>
  );
});

/** Tool calls of an llm node's agent turns, as they happen: count and names. */
export const ToolCalls = memo(function ToolCalls({ calls }: { calls: string }) {
  if (!calls) return null;
  const names = calls.split('\n');
  const distinct = [...new Set(names)];
  const label = `${names.length} tool call${names.length === 1 ? '' : 's'}`;
  return (
    <div className="wf-tools" data-testid="node-tool-calls" title={names.join(', ')}>
      {/* The tool step's own glyph: an emoji has no font on a Debian machine and draws as a box. */}
      <span className="wf-tools-count">
        {stepInfo('tool')?.icon} {label}
      </span>
      <span className="wf-tools-names mono">{distinct.join(', ')}</span>
    </div>
  );
});
