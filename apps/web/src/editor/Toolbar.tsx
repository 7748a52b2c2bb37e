import { lazy, Suspense, useState } from 'react';
import { hrefOf } from '../components/route.ts';
import { useEditor } from '../store/editor-hooks.ts';
import { EditActions } from './canvas/EditActions.tsx';
import { useSave } from './use-flow-actions.ts';

// Opened on demand: its own chunk (it brings the code preview with it).
const ExportDialog = lazy(() =>
  import('../export/ExportDialog.tsx').then((module) => ({ default: module.ExportDialog })),
);

export function Toolbar() {
  const name = useEditor((state) => state.graph.meta.name);
  const flowId = useEditor((state) => state.flowId);
  const version = useEditor((state) => state.version);
  const dirty = useEditor((state) => state.dirty);
  const save = useSave();
  const [saving, setSaving] = useState(false);
  const [exporting, setExporting] = useState(false);
  return (
    <div className="toolbar">
      <a className="button ghost" href="#/" aria-label="Back to all flows">
        ← Flows
      </a>
      <h1 className="toolbar-title">
        {name} <span className="mono muted small">{flowId}</span>
        {version !== null ? <span className="muted small"> v{version}</span> : null}
        {dirty ? (
          <span className="dirty" title="Unsaved changes">
            ● unsaved
          </span>
        ) : null}
      </h1>
      <EditActions />
      <a
        className="button"
        href={hrefOf({ screen: 'chat', flowId })}
        aria-label="Chat with this flow"
        title="Use the saved flow as a chat backend"
      >
        Chat
      </a>
      <button
        type="button"
        className="button"
        aria-label="Export as TypeScript"
        aria-haspopup="dialog"
        onClick={() => setExporting(true)}
      >
        {'</>'} Export
      </button>
      {exporting ? (
        <Suspense fallback={null}>
          <ExportDialog onClose={() => setExporting(false)} />
        </Suspense>
      ) : null}
      <button
        type="button"
        className="button primary"
        aria-label="Save flow"
        disabled={saving || !dirty}
        onClick={async () => {
          setSaving(true);
          await save();
          setSaving(false);
        }}
      >
        {saving ? 'Saving…' : 'Save'}
      </button>
    </div>
  );
}
