/**
 * Run the flow (saving first when it has unsaved edits) with a JSON input, then follow the run's
 * event stream: the store folds each event, and nodes light up through their selector hooks.
 */
import type { Json } from '@weft/engine';
import { useEffect, useRef, useState } from 'react';
import { useToast } from '../components/Toasts.tsx';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import { messageOf, trpc } from '../trpc.ts';
import { ApprovalButtons } from './nodes/ApprovalButtons.tsx';
import { StatusBadge } from './nodes/StatusBadge.tsx';
import { useSave } from './use-flow-actions.ts';

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

export function RunPanel() {
  const store = useEditorStoreApi();
  const toast = useToast();
  const save = useSave();
  const inputSchema = useEditor((state) => state.graph.meta.input);
  const problemCount = useEditor((state) => state.problems.length);
  const run = useEditor((state) => state.run);
  const [text, setText] = useState(() => sampleInput(inputSchema));
  const [starting, setStarting] = useState(false);
  const subscription = useRef<{ unsubscribe(): void } | null>(null);
  const parsed = parseInput(text);
  const active = run !== null && (run.state.status === 'running' || run.state.status === 'waiting');

  useEffect(() => () => subscription.current?.unsubscribe(), []);

  const start = async () => {
    if (!parsed.ok) return;
    setStarting(true);
    try {
      if (store.getState().dirty && !(await save())) return;
      const { runId } = await trpc.runs.start.mutate({ flowId: store.getState().flowId, input: parsed.value });
      subscription.current?.unsubscribe();
      store.getState().startRun(runId);
      subscription.current = trpc.runs.events.subscribe(
        { runId, lastEventId: null },
        {
          onData: (envelope) => store.getState().applyRunEvent(envelope.data),
          onError: (error) => toast(`Lost the run's event stream: ${messageOf(error)}`),
        },
      );
    } catch (error) {
      toast(`Could not start the run: ${messageOf(error)}`);
    } finally {
      setStarting(false);
    }
  };

  const disabledReason = !parsed.ok
    ? 'The input is not valid JSON'
    : problemCount > 0
      ? 'Fix the problems first'
      : active
        ? 'A run is in progress'
        : null;
  const waiting = run ? run.state.order.filter((id) => run.state.steps[id]?.status === 'waiting') : [];

  return (
    <section className="run-panel" aria-label="Run">
      <h2 className="panel-title">Run</h2>
      <div className="field">
        <label htmlFor="run-input">Input (JSON)</label>
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
      {run ? (
        <div className="run-status" data-testid="run-status" data-status={run.state.status}>
          <div>
            <span className="mono small">{run.runId}</span>{' '}
            <span className={`status-badge status-${run.state.status}`}>{run.state.status}</span>
          </div>
          {waiting.map((stepId) => (
            <div key={stepId} className="run-waiting">
              <StatusBadge status="waiting" /> <span className="mono">{stepId}</span>
              <ApprovalButtons stepId={stepId} />
            </div>
          ))}
          {run.state.status === 'completed' ? (
            <pre className="pre" data-testid="run-output">
              {JSON.stringify(run.state.output, null, 2)}
            </pre>
          ) : null}
          {run.state.error ? <pre className="pre error">{run.state.error.message}</pre> : null}
        </div>
      ) : null}
    </section>
  );
}
