/**
 * bench/debugger.ts's measurements inside the page. Each runs as one `page.evaluate`, timing
 * with the page's own clock and frames (`performance.now`, `requestAnimationFrame`), so no
 * DevTools round trip is in a number. "Done" always means: the DOM shows it and one more frame
 * has been drawn.
 *
 * The run view is found by the names agreed for it (slider "Event position", region
 * "Timeline"); where those are not there yet, by what the page has (any range input), and the
 * result says which.
 */
import type { Page } from '../../e2e/support/app.ts';

export interface OpenResult {
  ms: number;
  /** How the scrubber was found: 'agreed' (slider "Event position") or 'fallback'. */
  slider: 'agreed' | 'fallback' | 'none';
  /** Timeline bars and canvas nodes in the DOM once open (both draw only what is in view). */
  bars: number;
  nodes: number;
}

/** From a screen that is not the run view, to the run view of `runId` with all `events` loaded. */
export function openRunView(page: Page, runId: string, events: number, timeoutMs: number): Promise<OpenResult> {
  return page.evaluate(
    async ({ runId, events, timeoutMs }) => {
      const frame = () => new Promise<number>((done) => requestAnimationFrame(done));
      const slider = () => {
        const agreed = document.querySelector<HTMLInputElement>('input[type="range"][aria-label="Event position"]');
        if (agreed) return { input: agreed, kind: 'agreed' as const };
        const any = document.querySelector<HTMLInputElement>('main input[type="range"]');
        return any ? { input: any, kind: 'fallback' as const } : null;
      };
      const start = performance.now();
      location.hash = `#/runs/${encodeURIComponent(runId)}`;
      for (;;) {
        await frame();
        const found = slider();
        const nodes = document.querySelectorAll('.react-flow__node').length;
        if (found && Number(found.input.max) === events - 1 && nodes > 0) {
          await frame();
          const timeline = document.querySelector(
            '[role="region"][aria-label="Timeline"], section[aria-label="Timeline"]',
          );
          return {
            ms: performance.now() - start,
            slider: found.kind,
            // Bars as the run view marks them today, or as buttons (the agreed names).
            bars: timeline
              ? timeline.querySelectorAll('[data-bar-id]').length || timeline.querySelectorAll('button').length
              : 0,
            nodes,
          };
        }
        if (performance.now() - start > timeoutMs) {
          return { ms: Number.NaN, slider: found?.kind ?? ('none' as const), bars: 0, nodes };
        }
      }
    },
    { runId, events, timeoutMs },
  );
}

/**
 * Moves the scrubber to each of `targets` as a user's input would (the value set, an `input`
 * event) and times each until the page has stopped changing and drawn it: the DOM quiet for a
 * frame after the last change the move caused.
 */
export function scrubTimes(page: Page, targets: number[]): Promise<number[]> {
  return page.evaluate(async (targets) => {
    const frame = () => new Promise<number>((done) => requestAnimationFrame(done));
    const input =
      document.querySelector<HTMLInputElement>('input[type="range"][aria-label="Event position"]') ??
      document.querySelector<HTMLInputElement>('main input[type="range"]');
    if (!input) return [];
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
    const times: number[] = [];
    for (const target of targets) {
      await frame();
      let lastChange = 0;
      const observer = new MutationObserver(() => {
        lastChange = performance.now();
      });
      observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
      const start = performance.now();
      setValue.call(input, String(target));
      input.dispatchEvent(new Event('input', { bubbles: true }));
      // Settled: a whole frame went by with no change, after the move changed something. That
      // frame's start is after the changed frame was drawn.
      let settled = Number.NaN;
      while (performance.now() - start < 2000) {
        const seen = lastChange;
        await frame();
        if (lastChange !== 0 && lastChange === seen) {
          settled = performance.now();
          break;
        }
      }
      observer.disconnect();
      times.push(settled - start);
    }
    return times;
  }, targets);
}

export interface DragResult {
  fps: number;
  /** The 95th percentile gap between frames, ms. */
  p95FrameMs: number;
  frames: number;
}

/**
 * A drag across the whole scrubber for `ms`: every frame the value moves on, as pointer moves
 * would move it, and the frames the page manages meanwhile are counted. With `bare`, the same
 * drag on a range input of its own that nothing listens to: the frame rate this browser gives
 * an idle page (the baseline).
 */
export function dragFps(page: Page, ms: number, bare: boolean): Promise<DragResult> {
  return page.evaluate(
    async ({ ms, bare }) => {
      const frame = () => new Promise<number>((done) => requestAnimationFrame(done));
      let input: HTMLInputElement | null;
      let own: HTMLInputElement | null = null;
      if (bare) {
        own = document.createElement('input');
        own.type = 'range';
        own.max = '10000';
        document.body.append(own);
        input = own;
      } else {
        input =
          document.querySelector<HTMLInputElement>('input[type="range"][aria-label="Event position"]') ??
          document.querySelector<HTMLInputElement>('main input[type="range"]');
      }
      if (!input) return { fps: Number.NaN, p95FrameMs: Number.NaN, frames: 0 };
      const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
      const max = Number(input.max);
      const stamps: number[] = [];
      const start = await frame();
      for (let now = start; now - start < ms; now = await frame()) {
        stamps.push(now);
        const share = (now - start) / ms;
        // There and back, so the drag crosses the whole run twice.
        const value = Math.round(max * (share < 0.5 ? share * 2 : 2 - share * 2));
        setValue.call(input, String(value));
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }
      own?.remove();
      const gaps = stamps.slice(1).map((stamp, i) => stamp - stamps[i]!);
      gaps.sort((a, b) => a - b);
      const span = stamps.at(-1)! - stamps[0]!;
      return {
        fps: ((stamps.length - 1) * 1000) / span,
        p95FrameMs: gaps[Math.floor(gaps.length * 0.95)] ?? Number.NaN,
        frames: stamps.length,
      };
    },
    { ms, bare },
  );
}

/** From the flow list to the runs screen with its first page of rows drawn. */
export function openRunsScreen(page: Page, hash: string, timeoutMs: number): Promise<{ ms: number; rows: number }> {
  return page.evaluate(
    async ({ hash, timeoutMs }) => {
      const frame = () => new Promise<number>((done) => requestAnimationFrame(done));
      const start = performance.now();
      location.hash = hash;
      for (;;) {
        await frame();
        const main = document.querySelector('main.runs-screen');
        const rows = document.querySelectorAll('table[aria-label="Runs"] a[aria-label^="Open run "]').length;
        if (main?.getAttribute('aria-busy') === 'false' && rows > 0) {
          await frame();
          return { ms: performance.now() - start, rows };
        }
        if (performance.now() - start > timeoutMs) return { ms: Number.NaN, rows };
      }
    },
    { hash, timeoutMs },
  );
}

/**
 * On the runs screen: types `word` into the search box, presses Enter, and times until the run
 * `expectId` is listed (first) and the screen says it is done. Returns the rows listed.
 */
export function searchHit(page: Page, word: string, expectId: string, timeoutMs: number) {
  return page.evaluate(
    async ({ word, expectId, timeoutMs }) => {
      const frame = () => new Promise<number>((done) => requestAnimationFrame(done));
      const box = document.querySelector<HTMLInputElement>('input[aria-label="Search runs"]');
      if (!box) return { ms: Number.NaN, rows: 0 };
      const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
      setValue.call(box, word);
      box.dispatchEvent(new Event('input', { bubbles: true }));
      // The box has re-rendered with the word before Enter reads it.
      await frame();
      const start = performance.now();
      box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
      for (;;) {
        await frame();
        const main = document.querySelector('main.runs-screen');
        const links = [...document.querySelectorAll('table[aria-label="Runs"] a[aria-label^="Open run "]')];
        const first = links[0]?.getAttribute('aria-label') ?? '';
        if (main?.getAttribute('aria-busy') === 'false' && first.startsWith(`Open run ${expectId} `)) {
          await frame();
          return { ms: performance.now() - start, rows: links.length };
        }
        if (performance.now() - start > timeoutMs) return { ms: Number.NaN, rows: links.length };
      }
    },
    { word, expectId, timeoutMs },
  );
}

/** One `runs.search` from the page, over the same HTTP the screen uses: the API's share of a number. */
export function apiSearchMs(page: Page, input: Record<string, unknown>): Promise<{ ms: number; rows: number }> {
  return page.evaluate(async (input) => {
    const start = performance.now();
    const response = await fetch(`/trpc/runs.search?input=${encodeURIComponent(JSON.stringify(input))}`);
    const body = (await response.json()) as { result?: { data: { runs: unknown[] } } };
    return { ms: performance.now() - start, rows: body.result?.data.runs.length ?? -1 };
  }, input);
}

/**
 * The run's data alone, fetched from the page as the run view fetches it (`runs.eventsPage`
 * page by page; `runs.get` on a server without it): what opening costs before anything is drawn.
 */
export function fetchRunMs(page: Page, runId: string): Promise<{ ms: number; how: string }> {
  return page.evaluate(async (runId) => {
    const get = async (path: string, input: unknown) => {
      const response = await fetch(`/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`);
      return { ok: response.ok, body: (await response.json()) as { result?: { data: unknown } } };
    };
    const start = performance.now();
    let after = 0;
    for (;;) {
      const page = await get('runs.eventsPage', { runId, after, limit: 1000 });
      if (!page.ok) break;
      const data = page.body.result?.data as { events: unknown[]; nextAfter: number | null };
      if (data.nextAfter === null || data.events.length === 0)
        return { ms: performance.now() - start, how: 'eventsPage' };
      after = data.nextAfter;
    }
    const again = performance.now();
    await get('runs.get', { runId });
    return { ms: performance.now() - again, how: 'runs.get' };
  }, runId);
}
