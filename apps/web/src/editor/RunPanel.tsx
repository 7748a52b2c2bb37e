/**
 * Run the flow (saving first when it has unsaved edits) on a chosen backend, with an input (a
 * form generated from the flow's input schema when it is flat, else JSON) and optional fixtures,
 * then open the run (its events as they come; the timeline and scrubber under the canvas): the
 * store folds them, and nodes light up through their selector hooks.
 */
import type { Json } from '@weft/engine';
import { type ChangeEvent, useState } from 'react';
import { useToast } from '../components/Toasts.tsx';
import { useOpenRun } from '../run-view/load-run.ts';
import { InputForm } from '../runs/InputForm.tsx';
import { emptyInput, inputFields } from '../runs/input-form.ts';
import { type BackendId, BackendOptions, useBackends } from '../runs/use-backends.tsx';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import { messageOf, trpc } from '../trpc.ts';
import { RunStatus } from './RunStatus.tsx';
import { useSave } from './use-flow-actions.ts';

type Fixtures = Record<string, Json[]>;

/** `{ field: "" }` for each property of the flow's input schema: a start for the user to fill in. */
function sampleInput(schema: Record<string, Json> | undefined): string {
  const properties = schema?.properties;
  const sample: Record<string, Json> = {};
  if (properties && typeof properties === 'object' && !Array.isArray(properties)) {
    for (const [key, value] of Object.entries(properties)) {
      const type = value && typeof value === 'object' && !Array.isArray(value) ? value.type : undefined;
      sample[key] =
        type === 'number' || type === 'integer'
          ? 0
          : type === 'boolean'
            ? false
            : type === 'array'
              ? []
              : type === 'object'
                ? {}
                : '';
    }
  }
  return JSON.stringify(sample, null, 2);
}

function parseInput(text: string): { ok: true; value: Json } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

function parseFixtures(text: string): Fixtures {
  const value = JSON.parse(text) as unknown;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error('fixtures must be a JSON object of step id → list of outputs');
  for (const [key, list] of Object.entries(value)) {
    if (!Array.isArray(list)) throw new Error(`fixtures.${key} must be a list of outputs`);
  }
  return value as Fixtures;
}

export function RunPanel() {
  const store = useEditorStoreApi();
  const toast = useToast();
  const save = useSave();
  const follow = useOpenRun();
  const inputSchema = useEditor((state) => state.graph.meta.input);
  const problemCount = useEditor((state) => state.problems.length);
  const run = useEditor((state) => state.run);
  const fields = inputFields(inputSchema);
  const [text, setText] = useState(() =>
    fields ? JSON.stringify(emptyInput(fields), null, 2) : sampleInput(inputSchema),
  );
  const [mode, setMode] = useState<'form' | 'json'>(fields ? 'form' : 'json');
  const backends = useBackends();
  const [backend, setBackend] = useState<BackendId>('inprocess');
  const [fixtures, setFixtures] = useState<{ name: string; value: Fixtures } | null>(null);
  const [starting, setStarting] = useState(false);
  const parsed = parseInput(text);
  const active = run !== null && (run.state.status === 'running' || run.state.status === 'waiting');
  const formValue =
    parsed.ok && parsed.value !== null && typeof parsed.value === 'object' && !Array.isArray(parsed.value)
      ? parsed.value
      : null;
  const showForm = mode === 'form' && fields !== null && formValue !== null;

  const start = async () => {
    if (!parsed.ok) return;
    setStarting(true);
    try {
      if (store.getState().dirty && !(await save())) return;
      const { runId } = await trpc.runs.start.mutate({
        flowId: store.getState().flowId,
        input: parsed.value,
        backend,
        ...(fixtures ? { fixtures: fixtures.value } : {}),
      });
      follow(runId);
    } catch (error) {
      toast(`Could not start the run: ${messageOf(error)}`);
    } finally {
      setStarting(false);
    }
  };

  const onFixtures = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    try {
      setFixtures({ name: file.name, value: parseFixtures(await file.text()) });
    } catch (error) {
      toast(`Could not read ${file.name}: ${messageOf(error)}`);
    }
  };

  const disabledReason = !parsed.ok
    ? 'The input is not valid JSON'
    : problemCount > 0
      ? 'Fix the problems first'
      : active
        ? 'A run is in progress'
        : null;

  return (
    <section className="run-panel" aria-label="Run">
      <h2 className="panel-title">Run</h2>
      <div className="field">
        <label htmlFor="run-backend">Backend</label>
        <select
          id="run-backend"
          className="input"
          aria-label="Backend"
          value={backend}
          onChange={(event) => setBackend(event.target.value as BackendId)}
        >
          <BackendOptions backends={backends} />
        </select>
      </div>
      <div className="field">
        <div className="field-head">
          <span>Input</span>
          {fields ? (
            <button
              type="button"
              className="button ghost small"
              aria-label={showForm ? 'Edit input as JSON' : 'Edit input as a form'}
              disabled={mode === 'json' && formValue === null}
              onClick={() => setMode(mode === 'form' ? 'json' : 'form')}
            >
              {showForm ? 'JSON' : 'Form'}
            </button>
          ) : null}
        </div>
        {showForm && fields && formValue ? (
          <InputForm fields={fields} value={formValue} onChange={(next) => setText(JSON.stringify(next, null, 2))} />
        ) : (
          <>
            <textarea
              id="run-input"
              className={`textarea mono${parsed.ok ? '' : ' invalid'}`}
              aria-label="Run input"
              aria-invalid={!parsed.ok}
              spellCheck={false}
              rows={5}
              value={text}
              onChange={(event) => setText(event.target.value)}
            />
            {parsed.ok ? null : <p className="field-error">{parsed.error}</p>}
          </>
        )}
      </div>
      <div className="field">
        <label htmlFor="run-fixtures">Fixtures (optional JSON: step id → outputs)</label>
        <input
          id="run-fixtures"
          type="file"
          accept=".json,application/json"
          aria-label="Fixtures file"
          onChange={onFixtures}
        />
        {fixtures ? (
          <span className="small">
            <span className="mono">{fixtures.name}</span> ({Object.keys(fixtures.value).length} steps){' '}
            <button
              type="button"
              className="button ghost small"
              aria-label="Remove fixtures"
              onClick={() => setFixtures(null)}
            >
              ✕
            </button>
          </span>
        ) : null}
      </div>
      <button
        type="button"
        className="button primary"
        aria-label="Run flow"
        disabled={disabledReason !== null || starting}
        title={disabledReason ?? 'Save if needed, then run the latest version'}
        onClick={start}
      >
        ▶ Run
      </button>
      {disabledReason && !active ? <span className="muted small"> {disabledReason}</span> : null}
      {run ? <RunStatus run={run} /> : null}
    </section>
  );
}
