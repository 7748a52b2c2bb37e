/** Toolbar buttons for canvas edits: undo/redo, copy/paste, delete, auto-layout, snap to grid. */
import { useReactFlow } from '@xyflow/react';
import { useState } from 'react';
import { useToast } from '../../components/Toasts.tsx';
import type { Size } from '../../graph/layout.ts';
import { useCanRedo, useCanUndo, useEditor, useEditorStoreApi, useHasSelection } from '../../store/editor-hooks.ts';

const MOD = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘' : 'Ctrl+';

export function EditActions() {
  const store = useEditorStoreApi();
  const toast = useToast();
  const canUndo = useCanUndo();
  const canRedo = useCanRedo();
  const hasSelection = useHasSelection();
  const hasNodes = useEditor((state) => state.selectedIds.length > 0);
  const canPaste = useEditor((state) => state.clipboard !== null);
  const snap = useEditor((state) => state.snapToGrid);
  const { getNodes, fitView } = useReactFlow();
  const [laying, setLaying] = useState(false);

  const layout = async () => {
    setLaying(true);
    const sizes = new Map<string, Size>();
    for (const node of getNodes()) {
      // Containers are sized by the layout around their children.
      if (node.type === 'container' || !node.measured?.width || !node.measured.height) continue;
      sizes.set(node.id, { width: node.measured.width, height: node.measured.height });
    }
    try {
      await store.getState().autoLayout(sizes);
    } finally {
      setLaying(false);
    }
    requestAnimationFrame(() => void fitView({ maxZoom: 1, duration: 200 }));
  };

  return (
    <fieldset className="toolbar-group" aria-label="Edit">
      <button
        type="button"
        className="button ghost"
        aria-label="Undo"
        title={`Undo (${MOD}Z)`}
        disabled={!canUndo}
        onClick={() => store.getState().undo()}
      >
        ↶
      </button>
      <button
        type="button"
        className="button ghost"
        aria-label="Redo"
        title={`Redo (${MOD}Shift+Z)`}
        disabled={!canRedo}
        onClick={() => store.getState().redo()}
      >
        ↷
      </button>
      <button
        type="button"
        className="button ghost"
        aria-label="Copy selected steps"
        title={`Copy (${MOD}C)`}
        disabled={!hasNodes}
        onClick={() => {
          const state = store.getState();
          const text = state.copySelection() ? state.clipboardText() : null;
          // Also on the system clipboard, for another tab or flow; this tab keeps its own copy anyway.
          if (text !== null) void navigator.clipboard?.writeText(text).catch(() => undefined);
        }}
      >
        Copy
      </button>
      <button
        type="button"
        className="button ghost"
        aria-label="Paste steps"
        title={`Paste (${MOD}V)`}
        disabled={!canPaste && !navigator.clipboard}
        onClick={async () => {
          const state = store.getState();
          // The system clipboard first (steps copied in another tab); without access, this tab's copy.
          const text = await navigator.clipboard?.readText().catch(() => '');
          if (!text?.trim()) {
            if (canPaste) state.paste();
            else toast('Could not paste: the clipboard is empty');
            return;
          }
          const problem = state.pasteText(text);
          if (problem) toast(`Could not paste: ${problem}`);
        }}
      >
        Paste
      </button>
      <button
        type="button"
        className="button ghost"
        aria-label="Delete selected"
        title="Delete (Delete / Backspace)"
        disabled={!hasSelection}
        onClick={() => store.getState().deleteSelection()}
      >
        Delete
      </button>
      <button type="button" className="button ghost" aria-label="Auto-layout" disabled={laying} onClick={layout}>
        {laying ? 'Laying out…' : 'Auto-layout'}
      </button>
      <button
        type="button"
        className="button ghost"
        aria-label="Snap to grid"
        aria-pressed={snap}
        onClick={() => store.getState().toggleSnapToGrid()}
      >
        {snap ? '▦ Snap' : '▢ Snap'}
      </button>
    </fieldset>
  );
}
