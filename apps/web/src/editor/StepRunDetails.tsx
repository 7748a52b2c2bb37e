/** What the live run did at a node: per run step, its status, attempts, duration, output or error. */
import { ownEntry } from '@weft/engine';
import { useEditor } from '../store/editor-hooks.ts';
import { formatDuration } from '../store/run-status.ts';
import { StatusBadge } from './nodes/StatusBadge.tsx';

export function StepRunDetails({ nodeId }: { nodeId: string }) {
  const stepIds = useEditor((state) => state.run?.nodes[nodeId]?.stepIds);
  const steps = useEditor((state) => state.run?.state.steps);
  if (!stepIds || !steps) return null;
  return (
    <div className="run-details">
      <h3 className="panel-subtitle">In this run</h3>
      {stepIds.map((stepId) => {
        const step = ownEntry(steps, stepId);
        if (!step) return null;
        return (
          <details key={stepId} className="run-step" open={stepIds.length === 1}>
            <summary>
              <span className="mono">{stepId}</span> <StatusBadge status={step.status} />
              {step.durationMs !== null ? (
                <span className="muted small"> {formatDuration(step.durationMs)}</span>
              ) : null}
              {step.attempts > 1 ? <span className="muted small"> · attempt {step.attempts}</span> : null}
            </summary>
            {step.text ? <pre className="pre">{step.text}</pre> : null}
            {step.error ? <pre className="pre error">{step.error.message}</pre> : null}
            {step.output !== null ? <pre className="pre">{JSON.stringify(step.output, null, 2)}</pre> : null}
          </details>
        );
      })}
    </div>
  );
}
