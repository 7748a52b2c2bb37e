/**
 * The selected node: a form generated from its step type's schema (or its config as JSON), its
 * problems, how it compares (while two runs or versions are compared), and what the run on the
 * canvas did there — the selected run step at the scrubbed moment first (the step inspector),
 * then every run step of the node. In the run view the settings fold away under the run's
 * details. With nothing selected: the flow's own settings.
 */
import { type ReactNode, useState } from 'react';
import { StepCompare } from '../compare/StepCompare.tsx';
import { stepInfo } from '../graph/step-catalog.ts';
import { StepInspector } from '../run-view/StepInspector.tsx';
import { useEditor } from '../store/editor-hooks.ts';
import { ConfigEditor } from './ConfigEditor.tsx';
import { FlowInspector } from './inspector/FlowInspector.tsx';
import { StepForm } from './inspector/StepForm.tsx';
import './inspector/inspector.css';
import { StatusBadge } from './nodes/StatusBadge.tsx';
import { StepRunDetails } from './StepRunDetails.tsx';

type Tab = 'form' | 'json';

export function Inspector({ runView = false }: { runView?: boolean }) {
  const node = useEditor((state) => state.graph.nodes.find((candidate) => candidate.id === state.selectedId) ?? null);
  const problems = useEditor((state) => state.problems);
  const status = useEditor((state) => (node ? (state.run?.nodes[node.id]?.status ?? null) : null));
  const inspecting = useEditor((state) => state.run !== null && state.selectedStepId !== null);
  const [tab, setTab] = useState<Tab>('form');

  if (!node) {
    const flowProblems = problems.filter((problem) => problem.nodeId === null);
    return (
      <section className="inspector" aria-label="Inspector">
        <h2 className="panel-title">Flow</h2>
        <p className="muted small">Select a step on the canvas to edit it; these settings belong to the whole flow.</p>
        {flowProblems.length > 0 ? (
          <ul className="node-problems">
            {flowProblems.map((problem) => (
              <li key={`${problem.source}:${problem.message}`}>{problem.message}</li>
            ))}
          </ul>
        ) : null}
        <FlowInspector />
      </section>
    );
  }
  const info = stepInfo(node.stepType);
  const mine = problems.filter((problem) => problem.nodeId === node.id);
  const tabs: { id: Tab; label: string }[] = [
    { id: 'form', label: 'Form' },
    { id: 'json', label: 'JSON' },
  ];
  return (
    <section className="inspector" aria-label="Inspector">
      <h2 className="panel-title">
        <span className="wf-icon" aria-hidden="true">
          {info?.icon ?? '•'}
        </span>{' '}
        {info?.label ?? node.kind} <span className="mono muted">{node.id}</span> <StatusBadge status={status} />
      </h2>
      {info ? <p className="muted small">{info.description}</p> : null}
      {mine.length > 0 ? (
        <ul className="node-problems">
          {mine.map((problem) => (
            <li key={`${problem.source}:${problem.message}`}>{problem.message}</li>
          ))}
        </ul>
      ) : null}
      {inspecting ? <StepInspector /> : null}
      {node.kind === 'step' && node.stepType ? (
        <Settings folded={runView}>
          <div className="inspector-tabs" role="tablist" aria-label="Step settings view">
            {tabs.map((item) => (
              <button
                key={item.id}
                type="button"
                role="tab"
                id={`inspector-tab-${item.id}`}
                aria-selected={tab === item.id}
                aria-controls={`inspector-panel-${item.id}`}
                onClick={() => setTab(item.id)}
              >
                {item.label}
              </button>
            ))}
          </div>
          <div role="tabpanel" id={`inspector-panel-${tab}`} aria-labelledby={`inspector-tab-${tab}`}>
            {tab === 'form' ? (
              <StepForm key={node.id} nodeId={node.id} stepType={node.stepType} config={node.config ?? {}} />
            ) : (
              // Keyed by the config's owner only: typing must not reset the textarea, another node must.
              <ConfigEditor key={node.id} nodeId={node.id} config={node.config ?? {}} />
            )}
          </div>
        </Settings>
      ) : (
        <p className="muted small">This node has no settings of its own.</p>
      )}
      <StepCompare nodeId={node.id} />
      <StepRunDetails nodeId={node.id} />
    </section>
  );
}

/** The step's settings; in the run view folded under what the run did (a past run is read, not edited). */
function Settings({ folded, children }: { folded: boolean; children: ReactNode }) {
  if (!folded) return <>{children}</>;
  return (
    <details className="inspector-settings">
      <summary>Settings</summary>
      {children}
    </details>
  );
}
