/**
 * Issue 16, the run view's layout: in a finished run of every example in `examples/` (run
 * offline with its input and recorded model turns; the http examples against the demo API), no
 * node's box overlaps another's — outputs truncate inside their node, the full value is in the
 * inspector. A node inside its container is nesting, not overlap. Screenshots of each run view
 * are left in e2e/screenshots/layout-<example>.png to look at (glyphs, truncation).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoApi, startDemoApi } from '../packages/adapters/conformance/demo-api.ts';
import { loadExamples, withApiBase } from '../packages/adapters/conformance/examples.ts';
import { type Editor, openEditor, SCREENSHOTS } from './support/app.ts';
import { storedEvents, trpcCall } from './support/trpc.ts';

interface Box {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Every drawn node's box, on screen (the run view fits the whole flow). */
function nodeBoxes(page: Page): Promise<Box[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('.react-flow__node'), (element) => {
      const { x, y, width, height } = element.getBoundingClientRect();
      return { id: element.dataset.id ?? '?', x, y, width, height };
    }),
  );
}

/** Overlapping pairs, not counting one box wholly inside the other (a step in its container). */
function overlaps(boxes: readonly Box[]): string[] {
  const inside = (a: Box, b: Box) =>
    a.x >= b.x - 0.5 &&
    a.y >= b.y - 0.5 &&
    a.x + a.width <= b.x + b.width + 0.5 &&
    a.y + a.height <= b.y + b.height + 0.5;
  const found: string[] = [];
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) {
      const crossX = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
      const crossY = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
      // Half a pixel of touching is rounding, not covering.
      if (crossX > 0.5 && crossY > 0.5 && !inside(a, b) && !inside(b, a)) found.push(`${a.id} × ${b.id}`);
    }
  }
  return found;
}

describe('the run view layout of every example', () => {
  let editor: Editor | undefined;
  let demo: DemoApi | undefined;
  const examples = [...loadExamples().values()];

  beforeAll(async () => {
    demo = await startDemoApi();
    editor = await openEditor({ env: { WEFT_HTTP_ALLOW_PRIVATE: '1' } });
    // Flows that others use (spawn, flow tools) first: the API checks references when it stores one.
    const used = (id: string) =>
      examples.some((other) => other.id !== id && JSON.stringify(other.doc).includes(`"${id}"`));
    for (const example of [...examples].sort((a, b) => Number(used(b.id)) - Number(used(a.id))))
      await api('flows.create', { doc: withApiBase(example.doc, demo.baseUrl) }, 'POST');
  });

  afterAll(async () => {
    await editor?.close();
    await demo?.close();
  });

  const api = <T>(path: string, input: unknown, method: 'GET' | 'POST' = 'GET') =>
    trpcCall<T>(editor!.app.api, path, input, method);

  /** Starts the example's run and takes it to its end, approving what waits for a person. */
  async function finishedRun(id: string): Promise<string> {
    const example = examples.find((candidate) => candidate.id === id)!;
    const base = demo!.baseUrl;
    const { runId } = await api<{ runId: string }>(
      'runs.start',
      { flowId: id, input: withApiBase(example.input, base), fixtures: withApiBase(example.fixtures, base) },
      'POST',
    );
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { run } = await api<{ run: { status: string } }>('runs.get', { runId });
      if (['completed', 'failed', 'cancelled'].includes(run.status)) return runId;
      if (run.status === 'waiting') {
        for (const approval of await api<{ runId: string; stepId: string }[]>('approvals.list', { runId }))
          await api('approvals.decide', { runId, stepId: approval.stepId, approved: true }, 'POST').catch(() => null);
      }
      if (Date.now() > deadline) throw new Error(`run ${runId} of ${id} still ${run.status} after 30 s`);
      await new Promise((done) => setTimeout(done, 200));
    }
  }

  for (const { id } of examples) {
    it(`${id}: no node covers another`, async () => {
      const { page, app, errors } = editor!;
      const runId = await finishedRun(id);
      const events = await storedEvents(app.api, runId);
      await page.goto(`${app.url}#/runs/${encodeURIComponent(runId)}`);
      // Open when the scrubber holds every event and the canvas has drawn its nodes.
      const slider = page.getByRole('slider', { name: 'Event position' });
      await expect.poll(() => slider.getAttribute('max')).toBe(String(events.length - 1));
      await page.getByTestId('node-end').waitFor();
      // Nodes measured and the view fitted: two frames with the same boxes.
      let boxes: Box[] = [];
      await expect
        .poll(async () => {
          const before = JSON.stringify(boxes);
          boxes = await nodeBoxes(page);
          return boxes.length > 0 && JSON.stringify(boxes) === before;
        })
        .toBe(true);
      await page.screenshot({ path: join(SCREENSHOTS, `layout-${id}.png`) });
      expect(overlaps(boxes), `overlapping nodes in the run view of ${id}`).toEqual([]);
      expect(errors, app.output()).toEqual([]);
    });
  }
});
