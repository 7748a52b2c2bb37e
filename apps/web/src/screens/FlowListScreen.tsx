/**
 * Every saved flow: create one from a name, import IR JSON files (import/ImportFlowsButton.tsx) or
 * a TypeScript flow (export/ImportCodeButton.tsx), start from an example (examples/ExampleGallery.tsx:
 * the whole screen of a fresh workspace, a section below the list otherwise), and per flow open, rename
 * (a new version with the new name), duplicate, export (download its IR JSON) and delete.
 */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { hrefOf, navigate } from '../components/route.ts';
import { useToast } from '../components/Toasts.tsx';
import { ExampleGallery } from '../examples/ExampleGallery.tsx';
import { ImportCodeButton } from '../export/ImportCodeButton.tsx';
import { slugOf, starterFlow } from '../graph/starter.ts';
import { ImportFlowsButton } from '../import/ImportFlowsButton.tsx';
import { messageOf, trpc } from '../trpc.ts';

interface FlowSummary {
  id: string;
  name: string;
  latestVersion: number;
  updatedAt: number;
}

/** `<id>-copy`, `<id>-copy-2`, … : an id no listed flow has. */
function copyId(id: string, taken: ReadonlySet<string>): string {
  const base = `${id.slice(0, 58)}-copy`;
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

function download(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function RenameForm({ flow, onDone }: { flow: FlowSummary; onDone: (renamed: boolean) => void }) {
  const toast = useToast();
  const [name, setName] = useState(flow.name);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next = name.trim();
    if (!next || next === flow.name) return onDone(false);
    setBusy(true);
    try {
      const record = await trpc.flows.get.query({ id: flow.id });
      await trpc.flows.save.mutate({ id: flow.id, doc: { ...(record.doc as Record<string, unknown>), name: next } });
      toast(`Renamed to ${next}`, 'success');
      onDone(true);
    } catch (error) {
      toast(`Could not rename: ${messageOf(error)}`);
      setBusy(false);
    }
  };
  return (
    <form className="rename-form" onSubmit={submit}>
      <input
        className="input"
        aria-label={`New name for ${flow.name}`}
        value={name}
        // biome-ignore lint/a11y/noAutofocus: the field the user just asked for
        autoFocus
        onChange={(event) => setName(event.target.value)}
        onKeyDown={(event) => event.key === 'Escape' && onDone(false)}
      />
      <button type="submit" className="button primary" disabled={busy || !name.trim()} aria-label="Save name">
        Save
      </button>
      <button type="button" className="button ghost" aria-label="Cancel rename" onClick={() => onDone(false)}>
        Cancel
      </button>
    </form>
  );
}

export function FlowListScreen() {
  const toast = useToast();
  const [flows, setFlows] = useState<FlowSummary[] | null>(null);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setFlows(await trpc.flows.list.query());
    } catch (error) {
      setFlows([]);
      toast(`Could not load flows: ${messageOf(error)}`);
    }
  }, [toast]);

  useEffect(() => {
    void load();
  }, [load]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    const id = slugOf(name);
    if (!id) return;
    setBusy(true);
    try {
      await trpc.flows.create.mutate({ doc: starterFlow(id, name.trim()) });
      navigate({ screen: 'editor', flowId: id });
    } catch (error) {
      toast(`Could not create the flow: ${messageOf(error)}`);
    } finally {
      setBusy(false);
    }
  };

  const duplicate = async (flow: FlowSummary) => {
    const newId = copyId(flow.id, new Set((flows ?? []).map((other) => other.id)));
    try {
      await trpc.flows.duplicate.mutate({ id: flow.id, newId, name: `${flow.name} (copy)` });
      toast(`Duplicated as ${newId}`, 'success');
      await load();
    } catch (error) {
      toast(`Could not duplicate: ${messageOf(error)}`);
    }
  };

  const exportFlow = async (flow: FlowSummary) => {
    try {
      const { filename, json } = await trpc.flows.export.query({ id: flow.id });
      download(filename, json);
    } catch (error) {
      toast(`Could not export: ${messageOf(error)}`);
    }
  };

  const remove = async (flow: FlowSummary) => {
    if (!window.confirm(`Delete “${flow.name}” and all its versions? Runs keep their copy.`)) return;
    try {
      await trpc.flows.delete.mutate({ id: flow.id });
      toast(`Deleted ${flow.name}`, 'success');
      await load();
    } catch (error) {
      toast(`Could not delete: ${messageOf(error)}`);
    }
  };

  return (
    <main className="flow-list">
      <div className="flow-list-head">
        <h1>Flows</h1>
        <form className="create-form" onSubmit={create}>
          <input
            className="input"
            aria-label="New flow name"
            placeholder="New flow name, e.g. Support triage"
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
          <button type="submit" className="button primary" disabled={busy || !slugOf(name)} aria-label="Create flow">
            + Create flow
          </button>
        </form>
        <ImportFlowsButton onImported={() => void load()} />
        <ImportCodeButton />
      </div>
      {flows === null ? (
        <p className="muted">Loading…</p>
      ) : flows.length === 0 ? (
        <>
          <div className="empty-state">
            <h2>No flows yet</h2>
            <p>
              Run one of the examples below (offline, on recorded model turns) or copy it here to edit. Or type a name
              above and press “Create flow”: you get a one-step flow to build on.
            </p>
            <LatestRun />
          </div>
          <section className="examples-section" aria-labelledby="examples-heading">
            <h2 id="examples-heading">Examples</h2>
            <ExampleGallery onSaved={() => void load()} />
          </section>
        </>
      ) : (
        <ul className="flow-cards">
          {flows.map((flow) => (
            <li key={flow.id} className="flow-card">
              {renaming === flow.id ? (
                <RenameForm
                  flow={flow}
                  onDone={(renamed) => {
                    setRenaming(null);
                    if (renamed) void load();
                  }}
                />
              ) : (
                <a
                  className="flow-card-main"
                  href={`#/flows/${encodeURIComponent(flow.id)}`}
                  aria-label={`Open ${flow.name}`}
                >
                  <span className="flow-card-name">{flow.name}</span>
                  <span className="muted mono">
                    {flow.id} · v{flow.latestVersion} · {new Date(flow.updatedAt).toLocaleString()}
                  </span>
                </a>
              )}
              <div className="flow-card-actions">
                <a
                  className="button ghost"
                  href={hrefOf({ screen: 'runs', filters: { flow: flow.id } })}
                  aria-label={`Runs of ${flow.name}`}
                >
                  Runs
                </a>
                <button
                  type="button"
                  className="button ghost"
                  aria-label={`Rename ${flow.name}`}
                  onClick={() => setRenaming(flow.id)}
                >
                  Rename
                </button>
                <button
                  type="button"
                  className="button ghost"
                  aria-label={`Duplicate ${flow.name}`}
                  onClick={() => duplicate(flow)}
                >
                  Duplicate
                </button>
                <button
                  type="button"
                  className="button ghost"
                  aria-label={`Export ${flow.name}`}
                  onClick={() => exportFlow(flow)}
                >
                  Export
                </button>
                <button
                  type="button"
                  className="button ghost danger"
                  aria-label={`Delete ${flow.name}`}
                  onClick={() => remove(flow)}
                >
                  Delete
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {flows !== null && flows.length > 0 ? (
        <details className="examples-section">
          <summary>Examples</summary>
          <p className="muted examples-intro">
            Flows that show every step type: run one offline on its recorded model turns, or copy it here to edit.
          </p>
          <ExampleGallery onSaved={() => void load()} />
        </details>
      ) : null}
    </main>
  );
}

/**
 * The newest run, when a workspace without flows has one (the start script's demo run, a run
 * started from the CLI): runs live in the runs screen, which a newcomer on the flow list would miss.
 */
function LatestRun() {
  const [latest, setLatest] = useState<{ id: string; flowId: string; status: string } | null>(null);
  useEffect(() => {
    let live = true;
    trpc.runs.list
      .query({ limit: 1 })
      .then((runs) => live && setLatest(runs[0] ?? null))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  if (!latest) return null;
  return (
    <p className="small">
      Latest run:{' '}
      <a href={hrefOf({ screen: 'run', runId: latest.id })} aria-label={`Open the latest run, of ${latest.flowId}`}>
        {latest.flowId} · {latest.status}
      </a>{' '}
      · <a href={hrefOf({ screen: 'runs', filters: {} })}>all runs</a>
    </p>
  );
}
