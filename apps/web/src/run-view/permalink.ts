/**
 * Permalinks of the run view: `#/runs/<runId>?at=<seq>&step=<stepId>` names the run, the
 * scrubbed event and the selected run step, so opening it restores exactly that view. While the
 * user scrubs and selects, the address follows with `history.replaceState` (no new history
 * entry per event, no hashchange: the screen is not rebuilt), at most a few times a second.
 */
import { useEffect } from 'react';
import type { EditorStore } from '../store/editor-store.ts';

export interface RunLink {
  runId: string;
  /** The seq of the scrubbed event; absent: the end of the run (or live). */
  at?: number | undefined;
  step?: string | null | undefined;
}

export function runHref({ runId, at, step }: RunLink): string {
  const query: string[] = [];
  if (at !== undefined) query.push(`at=${encodeURIComponent(String(at))}`);
  if (step) query.push(`step=${encodeURIComponent(step)}`);
  return `#/runs/${encodeURIComponent(runId)}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}

/** The link to what the store shows now. */
export function currentLink(store: EditorStore): RunLink | null {
  const { run, selectedStepId } = store.getState();
  if (!run) return null;
  const tape = store.getState().runTape();
  const at = run.cursor === null || !tape ? undefined : (tape.events[run.cursor]?.seq ?? 0);
  return { runId: run.runId, at, step: selectedStepId };
}

const QUIET_MS = 250;

/** Keeps the address on the run view's permalink while `enabled` (the screen was opened on a run). */
export function usePermalinkSync(store: EditorStore, enabled: boolean): void {
  useEffect(() => {
    if (!enabled) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let last = '';
    const write = () => {
      timer = undefined;
      const link = currentLink(store);
      if (!link) return;
      const href = runHref(link);
      if (href === last || window.location.hash === href) return;
      last = href;
      history.replaceState(null, '', href);
    };
    const unsubscribe = store.subscribe((state, previous) => {
      const moved =
        state.selectedStepId !== previous.selectedStepId ||
        state.run?.cursor !== previous.run?.cursor ||
        state.run?.runId !== previous.run?.runId;
      // The first batch of events of a run opened at its end says nothing new.
      if (!moved || !state.run || state.run.length === 0) return;
      clearTimeout(timer);
      timer = setTimeout(write, QUIET_MS);
    });
    return () => {
      unsubscribe();
      clearTimeout(timer);
    };
  }, [store, enabled]);
}

/** A run id short enough for a breadcrumb: a child run's id keeps its own part (`…~research/tool#2.1`). */
export function shortRunId(runId: string): string {
  if (runId.length <= 16) return runId;
  const child = runId.lastIndexOf('~');
  return child >= 0 ? `…${runId.slice(child)}` : runId.slice(0, 12);
}
