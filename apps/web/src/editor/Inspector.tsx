/** The selected node: its config (JSON for now), its problems, and what the live run did there. */
import { stepInfo } from '../graph/step-catalog.ts';
import { useEditor } from '../store/editor-hooks.ts';
import { ConfigEditor } from './ConfigEditor.tsx';
import { ModelField } from './ModelField.tsx';
import { StatusBadge } from './nodes/StatusBadge.tsx';
import { StepRunDetails } from './StepRunDetails.tsx';

export function Inspector() {
  const node = useEditor((state) => state.graph.nodes.find((candidate) => candidate.id === state.selectedId) ?? null);
  const problems = useEditor((state) => state.problems);
  const status = useEditor((state) => (node ? (state.run?.nodes[node.id]?.status ?? null) : null));
  if (!node) {
    return (
      <section className="inspector" aria-label="Inspector">
        <h2 className="panel-title">Inspector</h2>
        <p className="muted">Select a step on the canvas to edit it.</p>
      </section>
    );
  }
  const info = stepInfo(node.stepType);
  const mine = problems.filter((problem) => problem.nodeId === node.id);
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
      {node.kind === 'step' && node.stepType === 'llm' ? (
        <ModelField nodeId={node.id} config={node.config ?? {}} />
      ) : null}
      {node.kind === 'step' ? (
        // Keyed by the config's owner only: typing must not reset the textarea, another node must.
        <ConfigEditor key={node.id} nodeId={node.id} config={node.config ?? {}} />
      ) : null}
      <StepRunDetails nodeId={node.id} />
    </section>
  );
}
