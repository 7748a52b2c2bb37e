/**
 * The example gallery on the flow list: every flow of the server's examples folder as a card —
 * its name, one line on what it shows, the step types it uses — with "Run", which runs it offline
 * on its recorded input and model turns and opens the live run, and "Copy to workspace", which
 * saves it (with the sub-flows it uses) and opens it in the editor. Examples that call the demo
 * API say so: without it, a recorded run answers their http calls (or, with no recording, the
 * server says what to start).
 */
import type { StepType } from '@weft/engine';
import { useEffect, useState } from 'react';
import { navigate } from '../components/route.ts';
import { useToast } from '../components/Toasts.tsx';
import { stepInfo } from '../graph/step-catalog.ts';
import { describeError, trpc } from '../trpc.ts';
import { listOfIds, oneLine } from './example-text.ts';
import './gallery.css';

type ExampleSummary = Awaited<ReturnType<typeof trpc.examples.list.query>>[number];

const TOOL_KIND_LABEL: Record<string, string> = { http: 'http tool', source: 'code tool', flow: 'flow tool' };

export function ExampleGallery({ onSaved }: { onSaved?: () => void }) {
  const toast = useToast();
  const [examples, setExamples] = useState<ExampleSummary[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    trpc.examples.list
      .query()
      .then((list) => live && setExamples(list))
      .catch((error: unknown) => {
        if (!live) return;
        setExamples([]);
        toast(`Could not load the examples: ${describeError(error)}`);
      });
    return () => {
      live = false;
    };
  }, [toast]);

  const run = async (example: ExampleSummary) => {
    setBusy(example.id);
    try {
      const { runId, saved, fromRecording } = await trpc.examples.run.mutate({ id: example.id });
      if (saved.length > 0) toast(`Saved ${listOfIds(saved)} to your workspace`, 'success');
      if (fromRecording)
        toast(`The demo API is not reachable: ${example.name}'s http calls are answered from a recording`, 'info');
      navigate({ screen: 'run', runId });
    } catch (error) {
      toast(`Could not run ${example.name}: ${describeError(error)}`);
      setBusy(null);
    }
  };

  const copy = async (example: ExampleSummary) => {
    setBusy(example.id);
    try {
      const { flowId, saved } = await trpc.examples.copy.mutate({ id: example.id });
      toast(
        saved.length > 0 ? `Saved ${listOfIds(saved)} to your workspace` : `${example.name} is in your workspace`,
        'success',
      );
      onSaved?.();
      navigate({ screen: 'editor', flowId });
    } catch (error) {
      toast(`Could not copy ${example.name}: ${describeError(error)}`);
      setBusy(null);
    }
  };

  if (examples === null) return <p className="muted">Loading examples…</p>;
  if (examples.length === 0) return <p className="muted">This server has no examples folder (WEFT_EXAMPLES_DIR).</p>;
  return (
    <ul className="example-grid" aria-label="Examples">
      {examples.map((example) => (
        <li key={example.id} className="example-card" aria-label={`Example ${example.name}`}>
          <h3 className="example-name">{example.name}</h3>
          <p className="example-line" title={example.description}>
            {oneLine(example.description)}
          </p>
          <ul className="example-types" aria-label="Step types">
            {example.stepTypes.map((type) => (
              <li key={type} className="example-type">
                <span aria-hidden="true">{stepInfo(type as StepType)?.icon ?? '•'}</span> {type}
              </li>
            ))}
            {example.toolKinds.map((kind) => (
              <li key={`tool:${kind}`} className="example-type tool">
                {TOOL_KIND_LABEL[kind] ?? kind}
              </li>
            ))}
          </ul>
          <ExampleNotes example={example} />
          <div className="example-actions">
            <button
              type="button"
              className="button primary small"
              aria-label={`Run example ${example.name}`}
              disabled={busy !== null}
              onClick={() => run(example)}
            >
              {busy === example.id ? 'Starting…' : '▶ Run'}
            </button>
            <button
              type="button"
              className="button small"
              aria-label={
                example.inWorkspace ? `Open ${example.name} in the editor` : `Copy ${example.name} to the workspace`
              }
              disabled={busy !== null}
              onClick={() => copy(example)}
            >
              {example.inWorkspace ? 'Open in editor' : 'Copy to workspace'}
            </button>
          </div>
        </li>
      ))}
    </ul>
  );
}

/** What a newcomer should know before pressing Run. */
function ExampleNotes({ example }: { example: ExampleSummary }) {
  const notes: { key: string; text: string; warn?: boolean }[] = [];
  if (example.demoApi)
    notes.push({
      key: 'demo',
      warn: !example.recorded,
      text: example.recorded
        ? `Calls the demo API at ${example.demoApi}; when it is not running, a recording answers.`
        : `Calls the demo API at ${example.demoApi}: runs once it is started (examples/README.md).`,
    });
  if (example.approvals) notes.push({ key: 'approval', text: 'Asks for an approval: answer it in the run view.' });
  if (example.subFlows.length > 0)
    notes.push({ key: 'sub', text: `Uses ${listOfIds(example.subFlows)}, saved along with it.` });
  if (example.inWorkspace) notes.push({ key: 'saved', text: 'In your workspace.' });
  if (notes.length === 0) return null;
  return (
    <ul className="example-notes">
      {notes.map((note) => (
        <li key={note.key} className={note.warn ? 'warn' : undefined}>
          {note.text}
        </li>
      ))}
    </ul>
  );
}
