import { createContext, type ReactNode, useState } from 'react';
import { createEditorStore, type EditorInit, type EditorStore } from './editor-store.ts';

export const EditorStoreContext = createContext<EditorStore | null>(null);

/** One store per mounted editor; remount (a new `key`) to load another flow. */
export function EditorStoreProvider({ init, children }: { init: EditorInit; children?: ReactNode }) {
  const [store] = useState(() => createEditorStore(init));
  return <EditorStoreContext.Provider value={store}>{children}</EditorStoreContext.Provider>;
}
