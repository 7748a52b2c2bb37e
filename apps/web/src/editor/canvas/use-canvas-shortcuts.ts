/**
 * Canvas keyboard shortcuts: Ctrl/Cmd+Z undo, Ctrl/Cmd+Shift+Z or Ctrl+Y redo, Ctrl/Cmd+A select
 * all, Delete/Backspace delete the selection. Copy, cut and paste go through the system
 * clipboard: the browser's `copy` / `cut` / `paste` events (Ctrl/Cmd+C/X/V, the Edit menu) carry
 * the selected steps as IR JSON (graph/clipboard-ir.ts), so steps move between tabs and flows —
 * no clipboard permission is needed for those. All are ignored while typing in a field (inputs,
 * the code editor), which keep their own undo and clipboard.
 */
import { useEffect } from 'react';
import { useToast } from '../../components/Toasts.tsx';
import type { EditorStore } from '../../store/editor-store.ts';

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  return target.closest('input, textarea, select, [contenteditable="true"], .cm-editor, dialog') !== null;
}

export function useCanvasShortcuts(store: EditorStore) {
  const toast = useToast();
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || isEditable(event.target)) return;
      const state = store.getState();
      const mod = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      let handled = true;
      if (mod && key === 'z' && !event.shiftKey) state.undo();
      else if (mod && ((key === 'z' && event.shiftKey) || (key === 'y' && event.ctrlKey))) state.redo();
      else if (mod && key === 'a') state.setSelection(state.graph.nodes.map((node) => node.id));
      else if (!mod && (event.key === 'Delete' || event.key === 'Backspace')) state.deleteSelection();
      else handled = false;
      if (handled) event.preventDefault();
    };
    const onCopy = (event: ClipboardEvent, cut: boolean) => {
      // Selected text on the page (a run output, say) is copied as text.
      if (isEditable(event.target) || window.getSelection()?.toString()) return;
      const state = store.getState();
      if (!state.copySelection()) return;
      const text = state.clipboardText();
      if (text !== null && event.clipboardData) {
        event.clipboardData.setData('text/plain', text);
        event.preventDefault();
      }
      if (cut) state.deleteSelection();
    };
    const onPaste = (event: ClipboardEvent) => {
      if (isEditable(event.target)) return;
      const state = store.getState();
      const text = event.clipboardData?.getData('text/plain') ?? '';
      event.preventDefault();
      // What this tab copied when the system clipboard has nothing (an unserializable copy).
      if (text.trim() === '') state.paste();
      else {
        const problem = state.pasteText(text);
        if (problem) toast(`Could not paste: ${problem}`);
      }
    };
    const copy = (event: ClipboardEvent) => onCopy(event, false);
    const cut = (event: ClipboardEvent) => onCopy(event, true);
    window.addEventListener('keydown', onKeyDown);
    document.addEventListener('copy', copy);
    document.addEventListener('cut', cut);
    document.addEventListener('paste', onPaste);
    return () => {
      window.removeEventListener('keydown', onKeyDown);
      document.removeEventListener('copy', copy);
      document.removeEventListener('cut', cut);
      document.removeEventListener('paste', onPaste);
    };
  }, [store, toast]);
}
