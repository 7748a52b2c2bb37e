/**
 * `runs.replayPreview` for the request the form describes, asked again (debounced) whenever it
 * changes. An answer is kept with the request it answers, so a Start can require the preview of
 * exactly what it starts; an answer to an older request is dropped.
 */
import { useEffect, useState } from 'react';
import { describeError, trpc } from '../trpc.ts';
import type { ReplayRequest } from './replay-form.ts';

export type ReplayPreview = Awaited<ReturnType<typeof trpc.runs.replayPreview.query>>;

export type PreviewState =
  | { status: 'idle' }
  | { status: 'loading'; key: string; last: ReplayPreview | null }
  | { status: 'ready'; key: string; preview: ReplayPreview }
  | { status: 'error'; key: string; error: string };

export function requestKey(request: ReplayRequest | null): string {
  return request ? JSON.stringify(request) : '';
}

export function useReplayPreview(request: ReplayRequest | null, delayMs = 250): PreviewState {
  const key = requestKey(request);
  const [state, setState] = useState<PreviewState>({ status: 'idle' });
  useEffect(() => {
    if (!key) {
      setState({ status: 'idle' });
      return;
    }
    let live = true;
    setState((previous) => ({
      status: 'loading',
      key,
      last: previous.status === 'ready' ? previous.preview : previous.status === 'loading' ? previous.last : null,
    }));
    const timer = setTimeout(() => {
      trpc.runs.replayPreview
        .query(JSON.parse(key) as ReplayRequest)
        .then((preview) => live && setState({ status: 'ready', key, preview }))
        .catch((error: unknown) => live && setState({ status: 'error', key, error: describeError(error) }));
    }, delayMs);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key, delayMs]);
  return state;
}
