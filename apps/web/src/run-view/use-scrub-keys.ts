/**
 * The scrubber's keys: ← / → by event, Shift+← / Shift+→ (or [ / ]) by step, Home / End. In
 * the run view they work anywhere but in a text field (they win over the canvas, whose nodes a
 * past run's view should not nudge); in the editor only while focus is in the run dock.
 */
import type { RunEvent } from '@weft/engine';
import { type RefObject, useEffect } from 'react';
import type { EditorStore } from '../store/editor-store.ts';
import { nextIndex, type ScrubUnit } from './scrub.ts';

function isTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLInputElement) return target.type !== 'range' && target.type !== 'checkbox';
  return target.closest('textarea, select, [contenteditable="true"], .cm-editor') !== null;
}

/** The index a key moves the scrubber to, or null when the key is not the scrubber's. */
export function keyMove(
  key: string,
  shift: boolean,
  events: readonly Pick<RunEvent, 'type'>[],
  cursor: number | null,
): number | null {
  const at = cursor ?? events.length - 1;
  const move = (direction: 1 | -1, unit: ScrubUnit) => nextIndex(events, at, direction, unit);
  switch (key) {
    case 'ArrowLeft':
      return move(-1, shift ? 'step' : 'event');
    case 'ArrowRight':
      return move(1, shift ? 'step' : 'event');
    case '[':
      return move(-1, 'step');
    case ']':
      return move(1, 'step');
    case 'Home':
      return events.length > 0 ? 0 : null;
    case 'End':
      return events.length - 1;
    default:
      return null;
  }
}

export function useScrubKeys(store: EditorStore, scope: 'window' | RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTextField(event.target)) return;
      if (scope !== 'window' && !(event.target instanceof Node && scope.current?.contains(event.target))) return;
      const { run, runTape } = store.getState();
      const tape = runTape();
      if (!run || !tape || tape.length === 0) return;
      const index = keyMove(event.key, event.shiftKey, tape.events, run.cursor);
      if (index === null) return;
      event.preventDefault();
      event.stopPropagation();
      store.getState().setCursor(index);
    };
    // Capture: before xyflow moves the selected node with the same arrow keys.
    window.addEventListener('keydown', onKeyDown, true);
    return () => window.removeEventListener('keydown', onKeyDown, true);
  }, [store, scope]);
}
