/**
 * The selected node while comparing. Two runs: per run step on the node, whether it is the same,
 * the deltas of tokens and latency, the structural changes, and input and output side by side
 * (model text by words, JSON by lines). Two flow versions: the step's config changes and its
 * config side by side.
 */
import { flowStepsInOrder, type JsonChange, ownEntry, type StepComparison } from '@weft/engine';
import { markLabel, nodeOfStep, type RunsCompareView, type VersionsCompareView } from '../store/compare-view.ts';
import { useEditor } from '../store/editor-hooks.ts';
import { formatDuration } from '../store/run-status.ts';
import { formatPath, short, signed } from './diff-sides.ts';
import { SideBySide } from './SideBySide.tsx';
import './compare.css';

export function StepCompare({ nodeId }: { nodeId: string }) {
  const view = useEditor((state) => state.compare);
  const nodeIds = useEditor((state) => state.graph.nodes);
  if (!view) return null;
  const ids = new Set(nodeIds.map((node) => node.id));
  return view.kind === 'runs' ? (
    <RunsStepCompare view={view} nodeId={nodeId} nodeIds={ids} />
  ) : (
    <VersionStepCompare view={view} nodeId={nodeId} />
  );
}

/** Structural changes (microdiff), each as its path and old → new. */
function ChangeList({ label, changes }: { label: string; changes: JsonChange[] }) {
  return (
    <ul className="changes small" aria-label={label}>
      {changes.slice(0, 20).map((change) => (
        <li key={`${change.type}:${formatPath(change.path)}`}>
          <span className="mono">{formatPath(change.path)}</span>:{' '}
          {change.type === 'CREATE'
            ? `added ${short(change.value)}`
            : change.type === 'REMOVE'
              ? `removed ${short(change.oldValue)}`
              : `${short(change.oldValue)} → ${short(change.value)}`}
        </li>
      ))}
      {changes.length > 20 ? <li className="muted">… {changes.length - 20} more</li> : null}
    </ul>
  );
}

function Metric({ label, a, b, delta, unit }: { label: string; a: string; b: string; delta: string; unit?: string }) {
  return (
    <span className="metric">
      {label}: {a} → {b}{' '}
      <strong>
        ({delta}
        {unit ?? ''})
      </strong>
    </span>
  );
}

function StepDeltas({ step }: { step: StepComparison }) {
  if (!step.delta || !step.a || !step.b) return null;
  const duration = (ms: number | null) => (ms === null ? '—' : formatDuration(ms));
  return (
    <div className="small step-deltas" data-testid="step-deltas">
      <Metric label="tokens" a={String(step.a.tokens)} b={String(step.b.tokens)} delta={signed(step.delta.tokens)} />
      {step.a.spentTokens !== step.a.tokens || step.b.spentTokens !== step.b.tokens ? (
        <Metric
          label="spent"
          a={String(step.a.spentTokens)}
          b={String(step.b.spentTokens)}
          delta={signed(step.delta.spentTokens)}
        />
      ) : null}
      <Metric
        label="latency"
        a={duration(step.a.durationMs)}
        b={duration(step.b.durationMs)}
        delta={step.delta.durationMs === null ? '—' : signed(step.delta.durationMs)}
        unit={step.delta.durationMs === null ? '' : ' ms'}
      />
      {step.b.reused ? <span className="reused-badge">↺ reused in B</span> : null}
      {step.a.reused ? <span className="reused-badge">↺ reused in A</span> : null}
    </div>
  );
}

function RunsStepCompare({
  view,
  nodeId,
  nodeIds,
}: {
  view: RunsCompareView;
  nodeId: string;
  nodeIds: ReadonlySet<string>;
}) {
  const steps = view.comparison.steps.filter((step) => nodeOfStep(step.stepId, nodeIds) === nodeId);
  const labels: [string, string] = [`A ${view.a.runId.slice(0, 12)}`, `B ${view.b.runId.slice(0, 12)}`];
  if (steps.length === 0) return null;
  return (
    <section className="step-compare" aria-label="Compared with the other run">
      <h3 className="panel-subtitle">
        Compared with run <span className="mono">{view.b.runId}</span>
      </h3>
      {steps.map((step) => {
        const a = ownEntry(view.a.state.steps, step.stepId);
        const b = ownEntry(view.b.state.steps, step.stepId);
        const text = step.stepType === 'llm' || step.stepType === 'model-turn';
        return (
          <details
            key={step.stepId}
            className={`compare-step compare-${step.kind}`}
            open={step.kind !== 'same' && steps.length <= 4}
            data-testid={`compare-step-${step.stepId}`}
            data-compare={step.kind}
          >
            <summary>
              <span className="mono">{step.stepId}</span>{' '}
              <span className={`compare-tag compare-tag-${step.kind}`}>{markLabel(step.kind, view)}</span>
              {view.comparison.firstDivergence === step.stepId ? (
                <span className="compare-tag compare-tag-first">first divergence</span>
              ) : null}
            </summary>
            <StepDeltas step={step} />
            {step.kind === 'different' ? (
              <ChangeList label={`Changes in ${step.stepId}`} changes={step.changes} />
            ) : null}
            {step.kind === 'different' || step.kind === 'only-a' || step.kind === 'only-b' ? (
              <>
                <SideBySide title="Input" a={a?.input ?? null} b={b?.input ?? null} labels={labels} />
                <SideBySide
                  title="Output"
                  a={a?.error ? { error: a.error.message } : (a?.output ?? null)}
                  b={b?.error ? { error: b.error.message } : (b?.output ?? null)}
                  labels={labels}
                  text={text}
                />
              </>
            ) : null}
          </details>
        );
      })}
    </section>
  );
}

function VersionStepCompare({ view, nodeId }: { view: VersionsCompareView; nodeId: string }) {
  const step = view.comparison.steps.find((candidate) => candidate.stepId === nodeId);
  if (!step) return null;
  const configOf = (flow: VersionsCompareView['a']['flow']) =>
    flowStepsInOrder(flow).find((entry) => entry.step.id === nodeId)?.config ?? null;
  return (
    <section className="step-compare" aria-label="Compared with the other version">
      <h3 className="panel-subtitle">
        v{view.a.version} → v{view.b.version}:{' '}
        <span className={`compare-tag compare-tag-${step.kind}`}>{markLabel(step.kind, view)}</span>
      </h3>
      {step.kind === 'changed' ? (
        <>
          <ChangeList label={`Config changes of ${nodeId}`} changes={step.changes} />
          <SideBySide
            title="Config"
            a={configOf(view.a.flow)}
            b={configOf(view.b.flow)}
            labels={[`v${view.a.version}`, `v${view.b.version}`]}
          />
        </>
      ) : null}
    </section>
  );
}
