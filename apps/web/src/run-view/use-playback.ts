/**
 * Play: re-enacts the run from the scrubbed event with its recorded timings — at 1×, at 10×, or
 * as fast as the screen draws (one step per frame) — so each model's text streams in as its
 * `step.delta` events arrived. Scrubbing while playing continues from there; the end stops it.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useEditorStoreApi } from '../store/editor-hooks.ts';
import { nextIndex, playTo } from './scrub.ts';

export type Speed = 1 | 10 | 'max';

export function usePlayback() {
  const store = useEditorStoreApi();
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<Speed>(1);
  const speedRef = useRef<Speed>(speed);
  speedRef.current = speed;

  useEffect(() => {
    if (!playing) return;
    const tape = store.getState().runTape();
    const run = store.getState().run;
    if (!tape || !run || tape.length === 0) {
      setPlaying(false);
      return;
    }
    // From the start when at the end; else from where the scrubber is.
    let index = run.cursor === null || run.cursor >= tape.length - 1 ? 0 : run.cursor;
    let virtual = tape.events[index]!.at;
    store.getState().setCursor(index);
    let previous = performance.now();
    let frame = 0;
    const tick = (now: number) => {
      const current = store.getState().run;
      if (!current) return setPlaying(false);
      // The user moved the scrubber meanwhile: carry on from there.
      if (current.cursor !== index) {
        if (current.cursor === null) return setPlaying(false);
        index = current.cursor;
        virtual = tape.events[index]!.at;
      }
      const chosen = speedRef.current;
      if (chosen === 'max') index = nextIndex(tape.events, index, 1, 'step');
      else ({ index, virtual } = playTo(tape.events, { index, virtual }, now - previous, chosen));
      previous = now;
      if (index >= tape.length - 1) {
        store.getState().setCursor(null);
        return setPlaying(false);
      }
      store.getState().setCursor(index);
      frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [playing, store]);

  const toggle = useCallback(() => setPlaying((value) => !value), []);
  const stop = useCallback(() => setPlaying(false), []);
  return { playing, toggle, stop, speed, setSpeed };
}
