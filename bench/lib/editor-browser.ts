/**
 * bench/editor.ts's measurements inside the page, the same for Weft's editor and the bare React
 * Flow page: each times with the page's own clock and frames (`performance.now`,
 * `requestAnimationFrame`), so no DevTools round trip is in a number.
 *
 * - `installLoadProbe` (an init script, before the page's own): the first frame with a
 *   `.react-flow__node` shown (React Flow adds nodes hidden until it has measured them), and
 *   every long task (main thread busy over 50 ms);
 * - `loadTimes`: first render (ms since navigation) and time to interactive: the end of the last
 *   long task once the page has been quiet for QUIET_MS;
 * - `dragFrames`: a drag-pan of the canvas, one pointer move per frame, and the frame gaps;
 * - `recordFrames` / `stopFrames`: frame gaps while something else (typing) goes on.
 */
import type { Page } from '../../e2e/support/app.ts';

export interface FrameStats {
  fps: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
  /** Frames that took over 50 ms. */
  over50: number;
}

/** Registered with `context.addInitScript`: runs before the page's scripts on every load. */
export function installLoadProbe(): void {
  const probe = { firstRender: Number.NaN, longTasks: [] as { start: number; end: number }[] };
  (window as unknown as { __benchProbe: typeof probe }).__benchProbe = probe;
  // The bench opens each flow fitted unless the address says otherwise: no remembered view.
  for (const key of Object.keys(localStorage)) if (key.startsWith('weft:view:')) localStorage.removeItem(key);
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        probe.longTasks.push({ start: entry.startTime, end: entry.startTime + entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch {
    // No long-task timing in this browser: interactive is then the first render.
  }
  const watch = () => {
    // React Flow adds a node hidden and shows it once measured: the first one shown counts.
    if (document.querySelector('.react-flow__node:not([style*="visibility: hidden"])')) {
      // The frame after the one whose DOM had shown nodes: they are on screen.
      requestAnimationFrame(() => {
        probe.firstRender = performance.now();
      });
      return;
    }
    requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
}

export interface LoadTimes {
  firstRenderMs: number;
  interactiveMs: number;
  nodes: number;
  /** The canvas viewport once interactive (`.react-flow__viewport`'s transform). */
  view: { x: number; y: number; zoom: number };
  /** The canvas's size in CSS pixels (the bare page is given the editor's). */
  pane: { width: number; height: number };
}

/** Waits for the first render and then for quiet; NaN when the page never drew a node. */
export function loadTimes(page: Page, timeoutMs: number, quietMs: number): Promise<LoadTimes> {
  return page.evaluate(
    async ({ timeoutMs, quietMs }) => {
      type Probe = { firstRender: number; longTasks: { start: number; end: number }[] };
      const probe = (window as unknown as { __benchProbe: Probe }).__benchProbe;
      const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
      const viewport = () => {
        const transform = document.querySelector<HTMLElement>('.react-flow__viewport')?.style.transform ?? '';
        const match = /translate\((-?[\d.]+)px, ?(-?[\d.]+)px\) scale\(([\d.]+)\)/.exec(transform);
        return match
          ? { x: Number(match[1]), y: Number(match[2]), zoom: Number(match[3]) }
          : { x: Number.NaN, y: Number.NaN, zoom: Number.NaN };
      };
      const pane = () => {
        const box = document.querySelector('.react-flow')?.getBoundingClientRect();
        return { width: Math.round(box?.width ?? 0), height: Math.round(box?.height ?? 0) };
      };
      while (Number.isNaN(probe.firstRender) && performance.now() < timeoutMs) await sleep(20);
      if (Number.isNaN(probe.firstRender))
        return { firstRenderMs: Number.NaN, interactiveMs: Number.NaN, nodes: 0, view: viewport(), pane: pane() };
      // Quiet: no long task ended in the last `quietMs`.
      const lastEnd = () => Math.max(probe.firstRender, ...probe.longTasks.map((task) => task.end));
      while (performance.now() - lastEnd() < quietMs && performance.now() < timeoutMs) await sleep(50);
      return {
        firstRenderMs: probe.firstRender,
        interactiveMs: lastEnd(),
        nodes: document.querySelectorAll('.react-flow__node').length,
        view: viewport(),
        pane: pane(),
      };
    },
    { timeoutMs, quietMs },
  );
}

/**
 * Drags the canvas's empty pane for `ms`: pointer down in the pane's middle, one move a frame
 * (a horizontal back-and-forth of `reach` px), up at the end. Also says whether the view moved.
 */
export function dragFrames(page: Page, ms: number, reach: number): Promise<FrameStats & { panned: boolean }> {
  return page.evaluate(
    async ({ ms, reach }) => {
      const frame = () => new Promise<number>((done) => requestAnimationFrame(done));
      const pane = document.querySelector<HTMLElement>('.react-flow__pane');
      const viewport = document.querySelector<HTMLElement>('.react-flow__viewport');
      if (!pane || !viewport) return { fps: 0, medianMs: 0, p95Ms: 0, maxMs: 0, over50: 0, panned: false };
      const box = pane.getBoundingClientRect();
      const x0 = box.left + box.width / 2;
      const y0 = box.top + box.height / 2;
      const mouse = (type: string, x: number, y: number, target: EventTarget) =>
        target.dispatchEvent(
          new MouseEvent(type, {
            bubbles: true,
            cancelable: true,
            view: window,
            clientX: x,
            clientY: y,
            button: 0,
            buttons: type === 'mouseup' ? 0 : 1,
          }),
        );
      const before = viewport.style.transform;
      let moved = false;
      await frame();
      mouse('mousedown', x0, y0, pane);
      const stamps: number[] = [];
      const start = await frame();
      for (let now = start; now - start < ms; now = await frame()) {
        stamps.push(now);
        const share = ((now - start) % 1000) / 1000;
        const dx = reach * Math.sin(share * 2 * Math.PI);
        mouse('mousemove', x0 + dx, y0 + dx / 4, window);
        if (!moved && viewport.style.transform !== before) moved = true;
      }
      mouse('mouseup', x0, y0, window);
      const gaps = stamps.slice(1).map((stamp, i) => stamp - stamps[i]!);
      gaps.sort((a, b) => a - b);
      const span = stamps.at(-1)! - stamps[0]!;
      return {
        fps: ((stamps.length - 1) * 1000) / span,
        medianMs: gaps[Math.floor(gaps.length / 2)] ?? Number.NaN,
        p95Ms: gaps[Math.floor(gaps.length * 0.95)] ?? Number.NaN,
        maxMs: gaps.at(-1) ?? Number.NaN,
        over50: gaps.filter((gap) => gap > 50).length,
        panned: moved,
      };
    },
    { ms, reach },
  );
}

/** Starts recording frame timestamps in the page (until `stopFrames`). */
export function recordFrames(page: Page): Promise<void> {
  return page.evaluate(() => {
    const state = { stamps: [] as number[], on: true };
    (window as unknown as { __benchFrames: typeof state }).__benchFrames = state;
    const tick = (now: number) => {
      if (!state.on) return;
      state.stamps.push(now);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

export function stopFrames(page: Page): Promise<FrameStats> {
  return page.evaluate(() => {
    const state = (window as unknown as { __benchFrames: { stamps: number[]; on: boolean } }).__benchFrames;
    state.on = false;
    const { stamps } = state;
    const gaps = stamps.slice(1).map((stamp, i) => stamp - stamps[i]!);
    gaps.sort((a, b) => a - b);
    const span = stamps.at(-1)! - stamps[0]!;
    return {
      fps: ((stamps.length - 1) * 1000) / span,
      medianMs: gaps[Math.floor(gaps.length / 2)] ?? Number.NaN,
      p95Ms: gaps[Math.floor(gaps.length * 0.95)] ?? Number.NaN,
      maxMs: gaps.at(-1) ?? Number.NaN,
      over50: gaps.filter((gap) => gap > 50).length,
    };
  });
}
