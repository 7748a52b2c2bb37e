/**
 * The run on the canvas: its id, status, backend (with a link into the engine's own UI), its
 * lineage — "Replay of run X from step Y" linking to the source, the replays of this run linking
 * to each — approvals it waits for, its output or error, and "Save as test" once it completed.
 */
import { stepOf } from '@weft/engine';
import { Lineage } from '../replay/Lineage.tsx';
import { runHref } from '../run-view/permalink.ts';
import { useRunRecord } from '../runs/use-run-record.ts';
import type { LiveRun } from '../store/editor-store.ts';
import { SaveTestButton } from '../tests/SaveTestButton.tsx';
import { ApprovalButtons } from './nodes/ApprovalButtons.tsx';
import { StatusBadge } from './nodes/StatusBadge.tsx';

export function RunStatus({ run }: { run: LiveRun }) {
  const record = useRunRecord(run.runId, run.state.status);
  const link = record && 'link' in record ? (record.link as string | undefined) : undefined;
  const waiting = run.state.order.filter((id) => stepOf(run.state, id)?.status === 'waiting');
  return (
    <div className="run-status" data-testid="run-status" data-status={run.state.status}>
      <div>
        <a className="mono small" href={runHref({ runId: run.runId })}>
          {run.runId}
        </a>{' '}
        <span className={`status-badge status-${run.state.status}`} role="status" aria-label="Run status">
          {run.state.status}
        </span>
        {run.state.backend && run.state.backend !== 'inprocess' ? (
          <span className="muted small"> on {run.state.backend}</span>
        ) : null}
        {link ? (
          <a className="small" href={link} target="_blank" rel="noreferrer" aria-label="Open in the engine's UI">
            {' '}
            open in {run.state.backend === 'temporal' ? 'Temporal UI' : 'engine UI'} ↗
          </a>
        ) : null}
      </div>
      <Lineage runId={run.runId} replayOf={record?.replayOf ?? null} />
      {waiting.map((stepId) => (
        <div key={stepId} className="run-waiting">
          <StatusBadge status="waiting" /> <span className="mono">{stepId}</span>
          <ApprovalButtons stepId={stepId} />
        </div>
      ))}
      {run.state.status === 'completed' ? (
        <section aria-label="Run output">
          <pre className="pre" data-testid="run-output">
            {JSON.stringify(run.state.output, null, 2)}
          </pre>
        </section>
      ) : null}
      {run.state.error ? <pre className="pre error">{run.state.error.message}</pre> : null}
      {run.state.status === 'completed' ? <SaveTestButton runId={run.runId} /> : null}
    </div>
  );
}
