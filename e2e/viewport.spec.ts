/**
 * Issue 16, the canvas viewport: `#/flows/<id>?view=<x>,<y>,<zoom>` opens the editor at that
 * view; a pan updates the address (replaced, not pushed) and is remembered for the flow, so the
 * flow opened again without a view returns there; a long flow opens fitted whole, in columns.
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
});
