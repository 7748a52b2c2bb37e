/**
 * Where a run comes from and what came of it: "Replay of run X from step Y" (a link that opens
 * the source run on the canvas) and the replays of this run, each a link.
 */
import { hrefOf } from '../components/route.ts';
import { useReplays } from '../runs/use-run-record.ts';
import { useEditor } from '../store/editor-hooks.ts';

export function Lineage({
  runId,
  replayOf,
}: {
  runId: string;
  replayOf: { runId: string; checkpoint: string } | null;
}) {
  const flowId = useEditor((state) => state.flowId);
  const replays = useReplays(runId, flowId);
  if (!replayOf && replays.length === 0) return null;
  return (
    <div className="lineage" data-testid="run-lineage">
      {replayOf ? (
        <p className="small" data-testid="replay-of">
          ↺ Replay of run{' '}
          <a
            className="mono"
            href={hrefOf({ screen: 'editor', flowId, runId: replayOf.runId })}
            aria-label={`Open source run ${replayOf.runId}`}
          >
            {replayOf.runId}
          </a>{' '}
          from step <span className="mono">{replayOf.checkpoint}</span>
        </p>
      ) : null}
      {replays.length > 0 ? (
        <div className="small">
          Replays of this run:
          <ul className="lineage-replays" aria-label="Replays of this run">
            {replays.map((replay) => (
              <li key={replay.id}>
                <a
                  className="mono"
                  href={hrefOf({ screen: 'editor', flowId, runId: replay.id })}
                  aria-label={`Open replay ${replay.id} (${replay.status})`}
                >
                  {replay.id}
                </a>{' '}
                <span className={`status-badge status-${replay.status}`}>{replay.status}</span>
                {replay.replayOf ? (
                  <span className="muted">
                    {' '}
                    from <span className="mono">{replay.replayOf.checkpoint}</span>
                  </span>
                ) : null}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
