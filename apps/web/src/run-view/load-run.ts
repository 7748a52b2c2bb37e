/**
 * Opening a run in the editor's store: its stored events page by page (one store update per
 * page, so a 1,000-step run opens at once instead of folding event by event), then its live
 * events over the `runs.events` subscription resumed after the last page, gathered into one
 * update per frame. One run per store: opening another ends the previous stream.
 *
 * A server without `runs.eventsPage` still works: the subscription then brings every event.
 */
import type { RunEvent } from '@weft/engine';
import { useCallback, useEffect } from 'react';
import { useToast } from '../components/Toasts.tsx';
import { useEditorStoreApi } from '../store/editor-hooks.ts';
import type { EditorStore } from '../store/editor-store.ts';
import { messageOf, trpc } from '../trpc.ts';
import { eventPages } from './api.ts';

const FRAME_MS = 16;

interface OpenOptions {
  onError?(message: string): void;
  /** The scrubber position (seq) and run step to restore once the events are there (a permalink). */
  at?: number | undefined;
  step?: string | undefined;
}

const opened = new WeakMap<EditorStore, { close(): void }>();

export function openRun(store: EditorStore, runId: string, options: OpenOptions = {}): { close(): void } {
  opened.get(store)?.close();
  store.getState().startRun(runId);
  if (options.step !== undefined) store.getState().selectRunStep(options.step);
  if (options.at !== undefined) store.getState().scrubToSeq(options.at);
  const aborted = { aborted: false };
  let subscription: { unsubscribe(): void } | undefined;
  let queue: RunEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    const batch = queue;
    queue = [];
    if (!aborted.aborted) store.getState().appendRunEvents(batch);
  };
  void (async () => {
    try {
      for await (const page of eventPages(runId, 0, aborted)) store.getState().appendRunEvents(page);
    } catch {
      // An older server, or a page that failed: the subscription below reads from where we are.
    }
    if (aborted.aborted) return;
    const lastSeq = store.getState().runTape()?.lastSeq ?? 0;
    subscription = trpc.runs.events.subscribe(
      { runId, lastEventId: lastSeq > 0 ? String(lastSeq) : null },
      {
        onData: (envelope) => {
          queue.push(envelope.data as RunEvent);
          timer ??= setTimeout(flush, FRAME_MS);
        },
        onError: (error) => options.onError?.(`Lost the run's event stream: ${messageOf(error)}`),
      },
    );
  })();
  const handle = {
    close() {
      aborted.aborted = true;
      subscription?.unsubscribe();
      clearTimeout(timer);
      if (opened.get(store) === handle) opened.delete(store);
    },
  };
  opened.set(store, handle);
  return handle;
}

/** `open(runId)` for this editor's store (toasts on a lost stream); the stream ends when the editor unmounts. */
export function useOpenRun(): (runId: string, options?: Omit<OpenOptions, 'onError'>) => void {
  const store = useEditorStoreApi();
  const toast = useToast();
  useEffect(() => () => opened.get(store)?.close(), [store]);
  return useCallback(
    (runId: string, options: Omit<OpenOptions, 'onError'> = {}) => {
      openRun(store, runId, { ...options, onError: (message) => toast(message) });
    },
    [store, toast],
  );
}
