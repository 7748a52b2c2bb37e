/**
 * Whether the page has painted since the calling component mounted: false on the first render,
 * true two animation frames later (the first frame's callbacks run before its paint). Opening a
 * large flow, what is not needed to see it — the side panels, the exact fit-to-view — waits for
 * this, so the canvas is drawn first.
 */
import { useEffect, useState } from 'react';

export function useAfterFirstPaint(): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    let second = 0;
    const first = requestAnimationFrame(() => {
      second = requestAnimationFrame(() => setPainted(true));
    });
    return () => {
      cancelAnimationFrame(first);
      cancelAnimationFrame(second);
    };
  }, []);
  return painted;
}
