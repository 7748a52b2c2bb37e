/**
 * Which rows of a fixed-row-height list to render: those in view plus a few either side, so a
 * list of 100,000 runs costs the DOM about a screenful of rows. Hand-rolled (a few lines) rather
 * than a library: every row has the same height, which is the easy case.
 */
export interface RowWindow {
  /** The first row to render and one past the last. */
  first: number;
  last: number;
}

export function rowWindow(
  scrollTop: number,
  viewport: number,
  rowHeight: number,
  count: number,
  overscan = 8,
): RowWindow {
  if (count === 0 || rowHeight <= 0) return { first: 0, last: 0 };
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + Math.max(viewport, rowHeight)) / rowHeight) + overscan);
  return { first: Math.min(first, last), last };
}

/** Whether the next page should be asked for: the window reaches within `ahead` rows of the end. */
export function wantsMore(window: RowWindow, count: number, ahead = 40): boolean {
  return window.last >= count - ahead;
}
