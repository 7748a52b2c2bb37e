/**
 * What the run on the canvas did at a node, at the scrubbed moment: per run step (the step, each
 * model turn and tool call of an agent, each map item), its status, attempts, duration, whether
 * it was reused from the source run, its output or error; "inspect" opens it in the step
 * inspector and on the timeline. Once the run has ended: "Replay from here" and "Edit output…"
 * (replay with this checkpoint's result pinned to a typed value).
 */
import { isFinalStatus, ownEntry } from '@weft/engine';
import { ReplayButton } from '../replay/ReplayButton.tsx';
import { pinTargetOf } from '../replay/replay-form.ts';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import { formatDuration } from '../store/run-status.ts';
import { StatusBadge } from './nodes/StatusBadge.tsx';

export function StepRunDetails({ nodeId }: { nodeId: string }) {
  const store = useEditorStoreApi();
  const stepIds = useEditor((state) => state.run?.nodes[nodeId]?.stepIds);
  const run = useEditor((state) => state.run);
  const inspected = useEditor((state) => state.selectedStepId);
  if (!stepIds || !run) return null;
  const { steps } = run.view;
  // Replay reads the whole run: offered once it ended, wherever the scrubber is.
  const ended = isFinalStatus(run.state.status);
  // The node's own step is offered at the top; its turns, tool calls and items in their rows.
  const own = ended && stepIds.includes(nodeId) ? nodeId : null;
  return (
    <div className="run-details">
      <h3 className="panel-subtitle">In this run</h3>
      {own ? (
        <div className="run-step-actions">
          <ReplayButton from={own} />
          {pinTargetOf(run.state, own) !== null ? <ReplayButton from={own} editOutput /> : null}
        </div>
      ) : null}
      {stepIds.map((stepId) => {
        const step = ownEntry(steps, stepId);
        if (!step) return null;
        const pinnable = ended && pinTargetOf(run.state, stepId) !== null;
        const actions = ended && stepId !== own;
        return (
          <details key={stepId} className="run-step" open={stepIds.length === 1} data-testid={`run-step-${stepId}`}>
            <summary>
              <span className="mono">{stepId}</span> <StatusBadge status={step.status} />
              {step.reused ? (
                <span className="reused-badge" title="Answered from the source run, not executed">
                  ↺ reused
                </span>
              ) : null}
              {step.durationMs !== null ? (
                <span className="muted small"> {formatDuration(step.durationMs)}</span>
              ) : null}
              {step.attempts > 1 ? <span className="muted small"> · attempt {step.attempts}</span> : null}{' '}
              {inspected === stepId ? null : (
                <button
                  type="button"
                  className="transcript-link small"
                  aria-label={`Inspect ${stepId}`}
                  onClick={(event) => {
                    event.preventDefault();
                    store.getState().selectRunStep(stepId);
                  }}
                >
                  inspect
                </button>
              )}
            </summary>
            {actions ? (
              <div className="run-step-actions">
                <ReplayButton from={stepId} />
                {pinnable ? <ReplayButton from={stepId} editOutput /> : null}
              </div>
            ) : null}
            {step.text ? <pre className="pre">{step.text}</pre> : null}
            {step.error ? <pre className="pre error">{step.error.message}</pre> : null}
            {step.output !== null ? <pre className="pre">{JSON.stringify(step.output, null, 2)}</pre> : null}
          </details>
        );
      })}
    </div>
  );
}
