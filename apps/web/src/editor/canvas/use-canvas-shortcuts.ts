/**
 * Canvas keyboard shortcuts: Ctrl/Cmd+Z undo, Ctrl/Cmd+Shift+Z or Ctrl+Y redo, Ctrl/Cmd+C/X/V
 * copy/cut/paste, Ctrl/Cmd+A select all, Delete/Backspace delete the selection. Ignored while
 * typing in a field (inputs, the code editor), which keep their own undo and clipboard.
 */
import { useEffect } from 'react';
import type { EditorStore } from '../../store/editor-store.ts';

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  return target.closest('input, textarea, select, [contenteditable="true"], .cm-editor') !== null;
}

export function useCanvasShortcuts(store: EditorStore) {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || isEditable(event.target)) return;
      const state = store.getState();
      const mod = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      let handled = true;
      if (mod && key === 'z' && !event.shiftKey) state.undo();
      else if (mod && ((key === 'z' && event.shiftKey) || (key === 'y' && event.ctrlKey))) state.redo();
      else if (mod && key === 'c') handled = !window.getSelection()?.toString() && state.copySelection();
      else if (mod && key === 'x') state.cutSelection();
      else if (mod && key === 'v') state.paste();
      else if (mod && key === 'a') state.setSelection(state.graph.nodes.map((node) => node.id));
      else if (!mod && (event.key === 'Delete' || event.key === 'Backspace')) state.deleteSelection();
      else handled = false;
      if (handled) event.preventDefault();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [store]);
}
