/**
 * The canvas context area for the selected step: rename its id, and edit the arms of a fan-out
 * (parallel branches: add/rename/remove; branch cases: add/remove, else arm add/remove).
 */
import { type FormEvent, useEffect, useState } from 'react';
import { hasElse, parallelBranches } from '../../graph/arms.ts';
import { useEditor, useEditorStoreApi } from '../../store/editor-hooks.ts';

export function StepActions() {
  const node = useEditor((state) =>
    state.selectedIds.length === 1 ? (state.graph.nodes.find((n) => n.id === state.selectedId) ?? null) : null,
  );
  if (node?.kind !== 'step') return null;
  return (
    <section className="step-actions" aria-label={`Actions for step ${node.id}`}>
      <RenameField key={node.id} id={node.id} />
      {node.stepType === 'parallel' ? <ParallelArms id={node.id} /> : null}
      {node.stepType === 'branch' ? <BranchArms id={node.id} /> : null}
    </section>
  );
}

function useReport() {
  const [error, setError] = useState<string | null>(null);
  return { error, report: (result: string | null) => setError(result) };
}

function RenameField({ id }: { id: string }) {
  const store = useEditorStoreApi();
  const [value, setValue] = useState(id);
  const { error, report } = useReport();
  useEffect(() => setValue(id), [id]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    report(store.getState().renameStep(id, value.trim()));
  };
  return (
    <form className="step-actions-row" onSubmit={submit}>
      <label>
        <span className="muted small">Step id</span>
        <input
          className="mono"
          value={value}
          aria-label="Step id"
          aria-invalid={error ? true : undefined}
          onChange={(event) => setValue(event.target.value)}
        />
      </label>
      <button type="submit" className="button small" aria-label="Rename step" disabled={value.trim() === id}>
        Rename
      </button>
      {error ? (
        <span role="alert" className="error small">
          {error}
        </span>
      ) : null}
    </form>
  );
}

function ParallelArms({ id }: { id: string }) {
  const store = useEditorStoreApi();
  const branches = useEditor((state) => parallelBranches(state.graph, id).join('\n'));
  const { error, report } = useReport();
  const names = branches ? branches.split('\n') : [];
  return (
    <fieldset className="step-actions-arms" aria-label="Parallel branches">
      {names.map((name) => (
        <ArmName key={name} name={name} onRename={(to) => report(store.getState().renameParallelBranch(id, name, to))}>
          <button
            type="button"
            className="button small ghost"
            aria-label={`Remove branch ${name}`}
            onClick={() => report(store.getState().removeParallelBranch(id, name))}
          >
            ✕
          </button>
        </ArmName>
      ))}
      <button
        type="button"
        className="button small"
        aria-label="Add parallel branch"
        onClick={() => report(store.getState().addParallelBranch(id))}
      >
        + Branch
      </button>
      {error ? (
        <span role="alert" className="error small">
          {error}
        </span>
      ) : null}
    </fieldset>
  );
}

function ArmName({
  name,
  onRename,
  children,
}: {
  name: string;
  onRename(to: string): void;
  children: React.ReactNode;
}) {
  const [value, setValue] = useState(name);
  return (
    <form
      className="step-actions-row"
      onSubmit={(event) => {
        event.preventDefault();
        if (value.trim() !== name) onRename(value.trim());
      }}
    >
      <input
        className="mono small"
        value={value}
        aria-label={`Name of branch ${name}`}
        onChange={(event) => setValue(event.target.value)}
        onBlur={() => {
          if (value.trim() !== name) onRename(value.trim());
        }}
      />
      {children}
    </form>
  );
}

function BranchArms({ id }: { id: string }) {
  const store = useEditorStoreApi();
  const count = useEditor((state) => {
    const cases = state.graph.nodes.find((node) => node.id === id)?.config?.cases;
    return Array.isArray(cases) ? cases.length : 0;
  });
  const withElse = useEditor((state) => hasElse(state.graph, id));
  const { error, report } = useReport();
  return (
    <fieldset className="step-actions-arms" aria-label="Branch cases">
      {Array.from({ length: count }, (_, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: cases are identified by their index
        <span key={index} className="step-actions-row">
          <span className="mono small">case-{index}</span>
          <button
            type="button"
            className="button small ghost"
            aria-label={`Remove case ${index}`}
            disabled={count <= 1}
            onClick={() => report(store.getState().removeBranchCase(id, index))}
          >
            ✕
          </button>
        </span>
      ))}
      <button
        type="button"
        className="button small"
        aria-label="Add branch case"
        onClick={() => report(store.getState().addBranchCase(id))}
      >
        + Case
      </button>
      <button
        type="button"
        className="button small"
        aria-label={withElse ? 'Remove else arm' : 'Add else arm'}
        onClick={() => report(withElse ? store.getState().removeElse(id) : store.getState().addElse(id))}
      >
        {withElse ? '− Else' : '+ Else'}
      </button>
      {error ? (
        <span role="alert" className="error small">
          {error}
        </span>
      ) : null}
    </fieldset>
  );
}
