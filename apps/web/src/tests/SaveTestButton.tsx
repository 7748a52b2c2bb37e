/**
 * "Save as test" on a completed run: a case (the flow version, input, every recorded result it
 * needs and what must match — the output exactly or by schema, the step sequence) written by
 * the server into its tests folder. The Tests panel lists and runs it.
 */
import { useState } from 'react';
import { Dialog } from '../components/Dialog.tsx';
import { useToast } from '../components/Toasts.tsx';
import { describeError } from '../trpc.ts';
import { matchOf, saveTest } from './tests-api.ts';
import { announceTestsChanged } from './tests-events.ts';
import './tests.css';

const NAME = /^[A-Za-z0-9][\w .-]{0,119}$/;

export function SaveTestButton({ runId }: { runId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="button small" aria-label="Save run as test" onClick={() => setOpen(true)}>
        ✓ Save as test
      </button>
      {open ? <SaveTestDialog runId={runId} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

function SaveTestDialog({ runId, onClose }: { runId: string; onClose(): void }) {
  const toast = useToast();
  const [name, setName] = useState('');
  const [output, setOutput] = useState<'exact' | 'schema' | 'ignore'>('exact');
  const [steps, setSteps] = useState(true);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const nameError =
    name.trim() !== '' && !NAME.test(name.trim())
      ? 'Test name: use letters, digits, spaces, . - _ (at most 120)'
      : null;
  const match = matchOf(output, steps);
  const nothing = match.length === 0;

  const save = async () => {
    setSaving(true);
    setError(null);
    try {
      const saved = await saveTest({
        runId,
        ...(name.trim() ? { name: name.trim() } : {}),
        match,
      });
      announceTestsChanged();
      toast(`Saved test “${saved.case.name}” to ${saved.file}`, 'success');
      onClose();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Dialog
      title="Save run as a test"
      className="save-test-dialog"
      onClose={onClose}
      closeLabel="Close save as test"
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="button primary"
            aria-label="Save test"
            disabled={saving || nameError !== null || nothing}
            title={nothing ? 'Choose at least one thing that must match' : undefined}
            onClick={save}
          >
            {saving ? 'Saving…' : 'Save test'}
          </button>
        </>
      }
    >
      <p className="muted small">
        Run <span className="mono">{runId}</span> becomes a test case: its input and every recorded model turn, tool,
        http and code result, replayed offline and compared with what this run did.
      </p>
      <div className="field">
        <label htmlFor="test-name">Test name (optional)</label>
        <input
          id="test-name"
          className={`input${nameError ? ' invalid' : ''}`}
          placeholder="derived from the flow and run"
          aria-invalid={nameError ? true : undefined}
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        {nameError ? (
          <p className="field-error" role="alert">
            {nameError}
          </p>
        ) : null}
      </div>
      <fieldset className="field">
        <legend>The output must match</legend>
        {(
          [
            ['exact', 'Exactly'],
            ['schema', 'By JSON Schema (its shape, not its values)'],
            ['ignore', 'Not checked'],
          ] as const
        ).map(([value, label]) => (
          <label key={value} className="choice">
            <input type="radio" name="test-output" checked={output === value} onChange={() => setOutput(value)} />{' '}
            {label}
          </label>
        ))}
      </fieldset>
      <label className="choice">
        <input type="checkbox" checked={steps} onChange={(event) => setSteps(event.target.checked)} /> The step sequence
        must match
      </label>
      {nothing ? (
        <p className="field-error" role="alert">
          What must match: choose the output or the step sequence (or both).
        </p>
      ) : null}
      {error ? (
        <p className="field-error" role="alert">
          Could not save the test: {error}
        </p>
      ) : null}
    </Dialog>
  );
}
