/**
 * Compare: the run on the canvas with another run of the flow (its source or its replays listed
 * first), or the flow version on the canvas with another version. The canvas colours its nodes
 * (legend on the canvas), the first divergence is marked, and the inspector shows the selected
 * step side by side. The run's own summary — output, deltas, steps off this canvas — is here.
 */
import { isFinalStatus } from '@weft/engine';
import { useEffect, useState } from 'react';
import { useReplays, useRunRecord } from '../runs/use-run-record.ts';
import { markLabel } from '../store/compare-view.ts';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import { formatDuration } from '../store/run-status.ts';
import { describeError, trpc } from '../trpc.ts';
import { signed, usd } from './diff-sides.ts';
import { compareWithRun, compareWithVersion } from './load-compare.ts';
import './compare.css';

type RunOption = { id: string; label: string };

/** Runs to compare with: the source and the replays first, then the flow's other ended runs. */
function useRunOptions(runId: string | undefined, flowId: string, status: string | undefined): RunOption[] {
  const record = useRunRecord(runId, status);
  const replays = useReplays(runId, flowId);
  const [others, setOthers] = useState<{ id: string; status: string; flowVersion: number }[]>([]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: listed again when the run's status changes
  useEffect(() => {
    let live = true;
    trpc.runs.list
      .query({ flowId, limit: 50 })
      .then((list) => live && setOthers(list))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [flowId, status]);
  const options: RunOption[] = [];
  const seen = new Set<string>(runId ? [runId] : []);
  const add = (id: string, label: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    options.push({ id, label });
  };
  if (record?.replayOf) add(record.replayOf.runId, `${record.replayOf.runId} (source of this replay)`);
  for (const replay of replays) if (isFinalStatus(replay.status)) add(replay.id, `${replay.id} (replay of this run)`);
  for (const run of others)
    if (isFinalStatus(run.status)) add(run.id, `${run.id} (v${run.flowVersion}, ${run.status})`);
  return options;
}

function useVersions(flowId: string): number[] {
  const [versions, setVersions] = useState<number[]>([]);
  useEffect(() => {
    let live = true;
    trpc.flows.versions
      .query({ id: flowId })
      .then((list) => live && setVersions(list.map((entry) => entry.version)))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [flowId]);
  return versions;
}

export function ComparePanel() {
  const store = useEditorStoreApi();
  const flowId = useEditor((state) => state.flowId);
  const version = useEditor((state) => state.version);
  const runId = useEditor((state) => state.run?.runId);
  const status = useEditor((state) => state.run?.state.status);
  const view = useEditor((state) => state.compare);
  const runOptions = useRunOptions(runId, flowId, status);
  const versions = useVersions(flowId).filter((candidate) => candidate !== version);
  const [otherRun, setOtherRun] = useState('');
  const [otherVersion, setOtherVersion] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ended = status !== undefined && isFinalStatus(status);
  const pickedRun = runOptions.some((option) => option.id === otherRun) ? otherRun : (runOptions[0]?.id ?? '');
  const pickedVersion = otherVersion || String(versions.at(-1) ?? '');

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="compare-panel" aria-label="Compare">
      <h2 className="panel-title">Compare</h2>
      {runId ? (
        <div className="compare-row">
          <label htmlFor="compare-run" className="small">
            This run with
          </label>
          <select
            id="compare-run"
            className="input"
            aria-label="Run to compare with"
            value={pickedRun}
            disabled={!ended || runOptions.length === 0}
            onChange={(event) => setOtherRun(event.target.value)}
          >
            {runOptions.length === 0 ? <option value="">no other ended run</option> : null}
            {runOptions.map((option) => (
              <option key={option.id} value={option.id}>
                {option.label}
              </option>
            ))}
          </select>
          <button
            type="button"
            className="button small"
            aria-label="Compare runs"
            disabled={busy || !ended || !pickedRun}
            title={ended ? undefined : 'Wait for the run to end'}
            onClick={() => act(() => compareWithRun(store, pickedRun))}
          >
            Compare
          </button>
        </div>
      ) : null}
      <div className="compare-row">
        <label htmlFor="compare-version" className="small">
          v{version ?? '?'} with
        </label>
        <select
          id="compare-version"
          className="input"
          aria-label="Flow version to compare with"
          value={pickedVersion}
          disabled={versions.length === 0}
          onChange={(event) => setOtherVersion(event.target.value)}
        >
          {versions.length === 0 ? <option value="">no other version</option> : null}
          {versions.map((candidate) => (
            <option key={candidate} value={String(candidate)}>
              v{candidate}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button small"
          aria-label="Compare versions"
          disabled={busy || !pickedVersion}
          onClick={() => act(() => compareWithVersion(store, Number(pickedVersion)))}
        >
          Compare
        </button>
      </div>
      {error ? (
        <p className="field-error" role="alert">
          Could not compare: {error}
        </p>
      ) : null}
      {view ? <CompareSummary /> : null}
    </section>
  );
}

function CompareSummary() {
  const store = useEditorStoreApi();
  const view = useEditor((state) => state.compare);
  if (!view) return null;
  return (
    <div className="compare-summary" data-testid="compare-summary">
      {view.kind === 'runs' ? (
        <>
          <p className="small">
            A <span className="mono">{view.a.runId}</span> (on the canvas) · B{' '}
            <span className="mono">{view.b.runId}</span>
          </p>
          <p className="small" data-testid="first-divergence">
            {view.comparison.firstDivergence ? (
              <>
                First divergence: <span className="mono">{view.comparison.firstDivergence}</span>
              </>
            ) : (
              'No divergence: every step did the same.'
            )}
          </p>
          <p className="small">
            Output: {view.comparison.output.same ? 'same' : 'different'} · tokens B − A:{' '}
            {signed(view.comparison.delta.tokens)} (spent {signed(view.comparison.delta.spentTokens)})
            {view.comparison.delta.durationMs !== null
              ? ` · time B − A: ${view.comparison.delta.durationMs < 0 ? '−' : '+'}${formatDuration(Math.abs(view.comparison.delta.durationMs))}`
              : ''}
            {view.cost ? ` · cost: ${usd(view.cost.a.usd)} → ${usd(view.cost.b.usd)}` : ''}
            {view.cost && [...view.cost.a.unpriced, ...view.cost.b.unpriced].length > 0
              ? ` (no price for ${[...new Set([...view.cost.a.unpriced, ...view.cost.b.unpriced])].join(', ')})`
              : ''}
          </p>
        </>
      ) : (
        <p className="small">
          v{view.a.version} → v{view.b.version}: {view.comparison.steps.filter((step) => step.kind !== 'same').length}{' '}
          steps differ
          {view.comparison.tools.length > 0
            ? `, tools: ${view.comparison.tools.map((t) => `${t.name} ${t.kind}`).join(', ')}`
            : ''}
          {view.comparison.input.same ? '' : ', input schema changed'}
          {view.comparison.output.same ? '' : ', output changed'}
        </p>
      )}
      {view.offCanvas.length > 0 ? (
        <div className="small">
          Not on this canvas:
          <ul aria-label="Steps not on this canvas">
            {view.offCanvas.map((item) => (
              <li key={item.stepId}>
                <span className="mono">{item.stepId}</span> — {markLabel(item.mark, view)}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <button
        type="button"
        className="button ghost small"
        aria-label="Stop comparing"
        onClick={() => store.getState().setCompare(null)}
      >
        Stop comparing
      </button>
    </div>
  );
}
