import { useState } from 'react';
import { useEditor } from '../store/editor-hooks.ts';
import { EditActions } from './canvas/EditActions.tsx';
import { useSave } from './use-flow-actions.ts';

export function Toolbar() {
  const name = useEditor((state) => state.graph.meta.name);
  const flowId = useEditor((state) => state.flowId);
  const version = useEditor((state) => state.version);
  const dirty = useEditor((state) => state.dirty);
  const save = useSave();
  const [saving, setSaving] = useState(false);
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
