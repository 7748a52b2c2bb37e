/**
 * Issue 16, the canvas viewport: `#/flows/<id>?view=<x>,<y>,<zoom>` opens the editor at that
 * view; a pan updates the address (replaced, not pushed) and is remembered for the flow, so the
 * flow opened again without a view returns there; a long flow opens fitted whole, in columns.
 * The minimap's nodes (a layer of their own under xyflow's mask) line up with the mask.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Editor, openEditor } from './support/app.ts';
import { trpcCall } from './support/trpc.ts';

const LONG = {
  irVersion: 1,
  id: 'long-chain',
  name: 'Long chain',
  steps: Array.from({ length: 300 }, (_, i) => ({ id: `s${i}`, type: 'transform', value: '=input' })),
};

/** The canvas's pan and zoom, read from the transform xyflow draws with. */
function viewOf(page: Page) {
  return page.evaluate(() => {
    const transform = document.querySelector<HTMLElement>('.react-flow__viewport')?.style.transform ?? '';
    const match = /translate\((-?[\d.]+)px, ?(-?[\d.]+)px\) scale\(([\d.]+)\)/.exec(transform);
    return match ? { x: Number(match[1]), y: Number(match[2]), zoom: Number(match[3]) } : null;
  });
}

describe('the canvas viewport', () => {
  let editor: Editor | undefined;

  beforeAll(async () => {
    editor = await openEditor();
    await trpcCall(editor.app.api, 'flows.create', { doc: LONG }, 'POST');
  });

  afterAll(async () => {
    await editor?.close();
  });

  it('opens a long flow fitted whole, wrapped into columns', async () => {
    const { page, app } = editor!;
    await page.goto(`${app.url}#/flows/long-chain`);
    await page.getByTestId('node-s0').waitFor({ state: 'attached' });
    const pane = (await page.locator('.react-flow').boundingBox())!;
    // Every node is drawn and, once fitted, all of them lie inside the canvas.
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(302);
    const outside = () =>
      page.evaluate(
        ({ left, top, right, bottom }) =>
          Array.from(document.querySelectorAll('.react-flow__node'), (node) => node.getBoundingClientRect()).filter(
            (box) => box.left < left - 1 || box.top < top - 1 || box.right > right + 1 || box.bottom > bottom + 1,
          ).length,
        { left: pane.x, top: pane.y, right: pane.x + pane.width, bottom: pane.y + pane.height },
      );
    await expect.poll(outside).toBe(0);
    // Not one column: the first and the last step are side by side, not one above the other.
    const first = await page.getByTestId('node-s0').boundingBox();
    const last = await page.getByTestId('node-s299').boundingBox();
    expect(last!.x).toBeGreaterThan(first!.x + first!.width);
    expect(editor!.errors).toEqual([]);
  });

  it('opens at the view in the address, and writes the view back as the user pans', async () => {
    const { page, app } = editor!;
    await page.goto(`${app.url}#/flows/long-chain?view=40,30,1.5`);
    await page.getByTestId('node-s0').waitFor();
    expect(await viewOf(page)).toEqual({ x: 40, y: 30, zoom: 1.5 });
    const historyLength = await page.evaluate(() => history.length);

    // A drag on the empty canvas: from a point where nothing but the pane is.
    const start = await page.evaluate(() => {
      const box = document.querySelector('.react-flow__pane')!.getBoundingClientRect();
      for (let y = box.top + 200; y < box.bottom - 200; y += 20)
        for (let x = box.left + 20; x < box.right - 240; x += 20)
          if (document.elementFromPoint(x, y)?.classList.contains('react-flow__pane')) return { x, y };
      return null;
    });
    expect(start).not.toBeNull();
    await page.mouse.move(start!.x, start!.y);
    await page.mouse.down();
    await page.mouse.move(start!.x - 100, start!.y - 50, { steps: 8 });
    await page.mouse.up();
    await page.waitForURL((url) => url.hash === '#/flows/long-chain?view=-60,-20,1.5');
    expect(await page.evaluate(() => history.length)).toBe(historyLength);

    // Opened again without a view: where it was left.
    await page.goto(`${app.url}#/`);
    await page.goto(`${app.url}#/flows/long-chain`);
    await page.getByTestId('node-s0').waitFor();
    expect(await viewOf(page)).toEqual({ x: -60, y: -20, zoom: 1.5 });
    expect(editor!.errors).toEqual([]);
  });

  it("draws the minimap's nodes where xyflow's mask expects them, however far the view goes", async () => {
    const { page, app } = editor!;
    /** Both layers' viewBoxes, and how many rects the nodes' path holds. */
    const minimap = () =>
      page.evaluate(() => ({
        nodes: document.querySelector('.wf-minimap-nodes svg')?.getAttribute('viewBox'),
        mask: document.querySelector('.react-flow__minimap-svg')?.getAttribute('viewBox'),
        rects: (document.querySelector('.wf-minimap-nodes path')?.getAttribute('d') ?? '').split('M').length - 1,
      }));
    await page.goto(`${app.url}#/flows/long-chain`);
    await page.getByTestId('node-s0').waitFor();
    // 300 steps, start and end; the mask draws no node of its own.
    await expect.poll(async () => (await minimap()).rects).toBe(302);
    expect(await page.locator('.react-flow__minimap-svg .react-flow__minimap-node').count()).toBe(0);
    const fitted = await minimap();
    expect(fitted.nodes).toBe(fitted.mask);
    // A view far outside the flow widens the minimap's extent: both layers follow it.
    await page.goto(`${app.url}#/flows/long-chain?view=9000,7000,1`);
    await expect.poll(async () => (await minimap()).mask).not.toBe(fitted.mask);
    const away = await minimap();
    expect(away.nodes).toBe(away.mask);
    expect(editor!.errors).toEqual([]);
  });
});
