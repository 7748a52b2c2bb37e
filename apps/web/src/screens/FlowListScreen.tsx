/** Every saved flow: create one from a name, open, delete. */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { navigate } from '../components/route.ts';
import { useToast } from '../components/Toasts.tsx';
import { slugOf, starterFlow } from '../graph/starter.ts';
import { messageOf, trpc } from '../trpc.ts';

interface FlowSummary {
  id: string;
  name: string;
  latestVersion: number;
  updatedAt: number;
}

export function FlowListScreen() {
  const toast = useToast();
  const [flows, setFlows] = useState<FlowSummary[] | null>(null);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);

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
      </div>
      {flows === null ? (
        <p className="muted">Loading…</p>
      ) : flows.length === 0 ? (
        <div className="empty-state">
          <h2>No flows yet</h2>
          <p>Type a name above and press “Create flow”: you get a one-step flow to build on.</p>
        </div>
      ) : (
        <ul className="flow-cards">
          {flows.map((flow) => (
            <li key={flow.id} className="flow-card">
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
              <button
                type="button"
                className="button ghost danger"
                aria-label={`Delete ${flow.name}`}
                onClick={() => remove(flow)}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
