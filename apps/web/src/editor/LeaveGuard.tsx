/**
 * Asks before unsaved edits are lost. Every way out of the editor changes the address: a link
 * (the run list, the top bar, a breadcrumb) is stopped as it is clicked; `navigate()` and the
 * back button are caught at `hashchange`, which puts the address back. Then a dialog asks: save
 * and leave, leave without saving, or stay. Closing or reloading the tab gets the browser's own
 * question (`beforeunload`: browsers show no page-made dialog there).
 */
import { useEffect, useState } from 'react';
import { Dialog } from '../components/Dialog.tsx';
import { useEditor, useEditorStoreApi } from '../store/editor-hooks.ts';
import { useSave } from './use-flow-actions.ts';

export function LeaveGuard() {
  const store = useEditorStoreApi();
  const save = useSave();
  const dirty = useEditor((state) => state.dirty);
  // The address the user asked for while there were unsaved edits.
  const [leavingTo, setLeavingTo] = useState<string | null>(null);

  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older Chromium asks only when returnValue is set.
      event.returnValue = '';
    };
    // A link is stopped before the address changes: once it has, any render (the click's own
    // focus and selection updates) reads the new address and the editor is gone before
    // `hashchange` is even dispatched.
    const onClick = (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
      const link = event.target instanceof Element ? event.target.closest('a[href^="#"]') : null;
      const href = link?.getAttribute('href');
      if (!href || link?.getAttribute('target') === '_blank' || href === window.location.hash) return;
      if (!store.getState().dirty) return;
      event.preventDefault();
      setLeavingTo(href);
    };
    // The back button and `navigate()`: put the editor's address back before the app's own
    // listener re-routes (a capturing listener on the target runs first), then ask.
    const onHashChange = (event: HashChangeEvent) => {
      if (!store.getState().dirty) return;
      history.replaceState(history.state, '', event.oldURL);
      setLeavingTo(new URL(event.newURL).hash || '#/');
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, { capture: true });
    window.addEventListener('hashchange', onHashChange, { capture: true });
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, { capture: true });
      window.removeEventListener('hashchange', onHashChange, { capture: true });
    };
  }, [dirty, store]);

  if (leavingTo === null) return null;
  const leave = () => {
    // Past the guard: the edits are given up (or saved), so nothing is dirty any more.
    store.setState({ dirty: false });
    setLeavingTo(null);
    window.location.hash = leavingTo;
  };
  return (
    <Dialog
      title="Leave without saving?"
      alert
      onClose={() => setLeavingTo(null)}
      closeLabel="Stay on this flow"
      footer={
        <>
          <button
            type="button"
            className="button primary"
            onClick={async () => {
              if (await save()) leave();
            }}
          >
            Save and leave
          </button>
          <button type="button" className="button danger" onClick={leave}>
            Leave without saving
          </button>
          <button type="button" className="button ghost" onClick={() => setLeavingTo(null)}>
            Stay
          </button>
        </>
      }
    >
      <p>This flow has edits that are not saved. Leaving it here drops them.</p>
    </Dialog>
  );
}
