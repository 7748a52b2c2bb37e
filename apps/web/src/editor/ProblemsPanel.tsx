/** Every problem that stops the flow from compiling; clicking one selects (and shows) its node. */
import { useReactFlow } from '@xyflow/react';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';

export function ProblemsPanel() {
  const problems = useEditor((state) => state.problems);
  const store = useEditorStoreApi();
  const { fitView } = useReactFlow();
  return (
    <section className="problems" aria-label="Problems">
      <h2 className="panel-title">
        Problems <span className={`count${problems.length ? ' bad' : ''}`}>{problems.length}</span>
      </h2>
      {problems.length === 0 ? (
        <p className="muted small">No problems: the flow compiles.</p>
      ) : (
        <ul>
          {problems.map((problem) => (
            <li key={`${problem.source}:${problem.nodeId}:${problem.message}`}>
              <button
                type="button"
                className="problem"
                aria-label={`Problem${problem.nodeId ? ` at ${problem.nodeId}` : ''}: ${problem.message}`}
                disabled={!problem.nodeId}
                onClick={() => {
                  if (!problem.nodeId) return;
                  store.getState().select(problem.nodeId);
                  void fitView({ nodes: [{ id: problem.nodeId }], duration: 300, maxZoom: 1.2 });
                }}
              >
                {problem.nodeId ? <span className="mono">{problem.nodeId}</span> : null} {problem.message}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
