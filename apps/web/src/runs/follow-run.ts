/**
 * Following one run on the canvas: reset the store's live run to `runId`, then fold its event
 * stream (`runs.events` from the first event: a past run replays, a running one continues live,
 * whoever started it — this tab, another tab or the CLI with `--server`). One follow per store:
 * following another run ends the previous stream.
 */
import { useCallback, useEffect } from 'react';
import { useToast } from '../components/Toasts.tsx';
import { useEditorStoreApi } from '../store/editor-hooks.ts';
import type { EditorStore } from '../store/editor-store.ts';
import { messageOf, trpc } from '../trpc.ts';

const streams = new WeakMap<EditorStore, { unsubscribe(): void }>();

export function followRun(store: EditorStore, runId: string, onError: (message: string) => void): void {
  streams.get(store)?.unsubscribe();
  store.getState().startRun(runId);
  const subscription = trpc.runs.events.subscribe(
    { runId, lastEventId: null },
    {
      onData: (envelope) => store.getState().applyRunEvent(envelope.data),
      onError: (error) => onError(`Lost the run's event stream: ${messageOf(error)}`),
    },
  );
  streams.set(store, subscription);
}

export function stopFollowing(store: EditorStore): void {
  streams.get(store)?.unsubscribe();
  streams.delete(store);
}

/** `follow(runId)` for this editor's store; the stream ends when the editor unmounts. */
export function useFollowRun(): (runId: string) => void {
  const store = useEditorStoreApi();
  const toast = useToast();
  useEffect(() => () => stopFollowing(store), [store]);
  return useCallback((runId: string) => followRun(store, runId, (message) => toast(message)), [store, toast]);
}
