/**
 * Above the canvas in the run view: breadcrumbs — the runs screen, then each parent run (a
 * child run was started by a `spawn` step or a flow tool) linking to that run with the step that
 * started this one selected — and a notice when the flow has changed since the version the run
 * ran, which is the version the canvas shows (runs are pinned).
 */
import { useEffect, useState } from 'react';
import { useLatestVersion } from '../runs/use-latest-version.ts';
import { useEditor } from '../store/editor-hooks.ts';
import { trpc } from '../trpc.ts';
import { runHref, shortRunId } from './permalink.ts';

interface Crumb {
  runId: string;
  flowId: string;
  /** The step of this run that started the next one. */
  stepId: string | null;
}

const MAX_DEPTH = 8;

/** This run's ancestors, root first, each with the step that started the next. */
function useAncestors(runId: string | null): Crumb[] {
  const [crumbs, setCrumbs] = useState<{ of: string; list: Crumb[] }>();
  useEffect(() => {
    if (!runId) return;
    let live = true;
    (async () => {
      const list: Crumb[] = [];
      let record = (await trpc.runs.get.query({ runId })).run;
      while (record.parentRunId && list.length < MAX_DEPTH) {
        const parent = (await trpc.runs.get.query({ runId: record.parentRunId })).run;
        list.unshift({ runId: parent.id, flowId: parent.flowId, stepId: record.parentStepId ?? null });
        record = parent;
      }
      if (live) setCrumbs({ of: runId, list });
    })().catch(() => undefined);
    return () => {
      live = false;
    };
  }, [runId]);
  return crumbs?.of === runId ? crumbs.list : [];
}

export function RunHeader({ runId: opened }: { runId: string }) {
  // The run on the canvas: the one opened, or one started from here since.
  const runId = useEditor((state) => state.run?.runId ?? opened);
  const flowId = useEditor((state) => state.flowId);
  const ranVersion = useEditor((state) => state.run?.state.flowVersion ?? null);
  const handoff = useEditor((state) => state.run?.state.handoff ?? null);
  const engineWait = useEditor((state) => state.run?.state.waitingForEngine ?? null);
  const ancestors = useAncestors(runId);
  const latest = useLatestVersion(flowId);
  return (
    <div className="run-header">
      <nav className="breadcrumbs small" aria-label="Run breadcrumbs">
        <a href="#/runs">Runs</a>
        {ancestors.map((crumb) => (
          <span key={crumb.runId}>
            {' › '}
            <a href={runHref({ runId: crumb.runId })} aria-label={`Parent run ${crumb.runId}`}>
              {crumb.flowId} <span className="mono">{shortRunId(crumb.runId)}</span>
            </a>
            {crumb.stepId ? (
              <>
                {' › '}
                <a
                  className="mono"
                  href={runHref({ runId: crumb.runId, step: crumb.stepId })}
                  aria-label={`Parent step ${crumb.stepId}`}
                >
                  {crumb.stepId}
                </a>
              </>
            ) : null}
          </span>
        ))}
        {' › '}
        <span aria-current="page">
          {flowId} <span className="mono">{shortRunId(runId)}</span>
          {ranVersion !== null ? <span className="muted"> v{ranVersion}</span> : null}
          {handoff ? (
            <span className="muted" data-testid="handoff-notice">
              {' '}
              · handed off to {handoff.to} at <span className="mono">{handoff.checkpoint}</span>
            </span>
          ) : null}
        </span>
      </nav>
      {engineWait ? (
        <p className="version-notice small" role="status" data-testid="engine-wait-notice">
          Waiting for its engine: {engineWait.engine} could not be reached ({engineWait.error.message}). The run starts
          there by itself as soon as it answers.
        </p>
      ) : null}
      {ranVersion !== null && latest !== null && latest !== ranVersion ? (
        <p className="version-notice small" role="note" data-testid="version-notice">
          This run ran version {ranVersion} of {flowId}, which the canvas shows; the flow has changed since (now v
          {latest}).{' '}
          <a href={`#/flows/${encodeURIComponent(flowId)}`} aria-label={`Open the current version of ${flowId}`}>
            Open the current version →
          </a>
        </p>
      ) : null}
    </div>
  );
}
