/**
 * The runs of the open flow, newest first, kept live by `runs.statusChanges` (runs started from
 * the CLI or another tab appear as they start). Each opens on the canvas at
 * `#/flows/<id>/runs/<runId>`. The runs screen, filtered to this flow, lists them all (this list
 * shows the latest 50) and searches them.
 */
import { useEffect, useState } from 'react';
import { hrefOf } from '../components/route.ts';
import { useToast } from '../components/Toasts.tsx';
import { useEditor } from '../store/editor-hooks.ts';
import { messageOf, trpc } from '../trpc.ts';

interface RunSummary {
  id: string;
  flowVersion: number;
  status: string;
  backend: string;
  createdAt: number;
  replayOf?: { runId: string; checkpoint: string } | null;
}

function ago(at: number): string {
  const seconds = Math.max(0, Math.round((Date.now() - at) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  return new Date(at).toLocaleString();
}

export function RunsList({ openRunId }: { openRunId: string | null }) {
  const flowId = useEditor((state) => state.flowId);
  const liveRunId = useEditor((state) => state.run?.runId ?? null);
  const liveStatus = useEditor((state) => state.run?.state.status ?? null);
  const toast = useToast();
  const [runs, setRuns] = useState<RunSummary[] | null>(null);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = () =>
      trpc.runs.list
        .query({ flowId, limit: 50 })
        .then((list) => live && setRuns(list as RunSummary[]))
        .catch((error: unknown) => live && toast(`Could not list runs: ${messageOf(error)}`));
    void load();
    // Status changes arrive in bursts (start, wait, end): reload once per burst.
    const subscription = trpc.runs.statusChanges.subscribe(
      { flowId },
      {
        onData: () => {
          clearTimeout(timer);
          timer = setTimeout(load, 100);
        },
      },
    );
    return () => {
      live = false;
      clearTimeout(timer);
      subscription.unsubscribe();
    };
  }, [flowId, toast]);

  return (
    <section className="runs-list" aria-label="Runs">
      <h2 className="panel-title">
        Runs <span className="count">{runs?.length ?? 0}</span>
      </h2>
      <a
        className="small"
        href={hrefOf({ screen: 'runs', filters: { flow: flowId } })}
        aria-label={`All runs of ${flowId}`}
      >
        All runs of this flow →
      </a>
      {runs === null ? (
        <p className="muted small">Loading…</p>
      ) : runs.length === 0 ? (
        <p className="muted small">No runs yet: press Run, or start one with `weft run --server`.</p>
      ) : (
        <ul className="runs">
          {runs.map((run) => {
            // The run on the canvas shows its live status (the list reloads a moment later).
            const status = run.id === liveRunId && liveStatus ? liveStatus : run.status;
            const current = run.id === openRunId || run.id === liveRunId;
            return (
              <li key={run.id}>
                <a
                  className={`run-link${current ? ' current' : ''}`}
                  href={hrefOf({ screen: 'editor', flowId, runId: run.id })}
                  aria-label={`Open run ${run.id} (${status})`}
                  aria-current={current ? 'true' : undefined}
                >
                  <span className={`status-badge status-${status}`}>{status}</span>{' '}
                  <span className="mono small">
                    {run.replayOf ? (
                      <span title={`Replay of ${run.replayOf.runId} from ${run.replayOf.checkpoint}`}>{'↺\u00a0'}</span>
                    ) : null}
                    {run.id.slice(0, 12)}
                  </span>{' '}
                  <span className="muted small">
                    v{run.flowVersion} · {run.backend} · {ago(run.createdAt)}
                  </span>
                </a>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
