import type { StepStatus } from '@weft/engine';
import { memo } from 'react';

const LABEL: Record<StepStatus, string> = {
  running: 'running',
  waiting: 'waiting',
  retrying: 'retrying',
  completed: 'done',
  failed: 'failed',
};

export const StatusBadge = memo(function StatusBadge({ status }: { status: StepStatus | null }) {
  if (!status) return null;
  return (
    <span className={`status-badge status-${status}`} data-status={status}>
      {LABEL[status]}
    </span>
  );
});
