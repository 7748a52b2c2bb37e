/**
 * Issue 16, folding in the real editor (graph/fold.ts, nodes/FoldButton.tsx): folding a parallel
 * or a branch hides the steps of its arms and draws one dashed edge to its join/merge node saying
 * how many steps it stands for; unfolding brings them back. Folding is a view of the canvas: the
 * flow is not edited, so nothing is left to save.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Editor, openEditor } from './support/app.ts';
import { trpcCall } from './support/trpc.ts';

const FLOW = {
  irVersion: 1,
  id: 'fold-arms',
  name: 'Fold arms',
  steps: [
    { id: 'first', type: 'transform', value: '=input' },
    {
      id: 'fan',
      type: 'parallel',
      branches: {
        a: [
          { id: 'a1', type: 'transform', value: '=input' },
          { id: 'a2', type: 'transform', value: '=input' },
        ],
        b: [{ id: 'b1', type: 'transform', value: '=input' }],
      },
    },
    {
      id: 'pick',
      type: 'branch',
      cases: [{ when: '=true', steps: [{ id: 'yes', type: 'transform', value: '=input' }] }],
      else: [{ id: 'no', type: 'transform', value: '=input' }],
    },
    { id: 'last', type: 'transform', value: '=input' },
  ],
};

const ARMS = { fan: ['a1', 'a2', 'b1'], pick: ['yes', 'no'] } as const;

/** How many of `ids` are drawn on the canvas (a folded-away node is not in the DOM at all). */
function drawn(page: Page, ids: readonly string[]): Promise<number> {
  return page.evaluate(
    (ids) => ids.filter((id) => document.querySelector(`[data-testid="node-${id}"]`) !== null).length,
    ids as string[],
  );
}

/** The edge labels on the canvas that say steps are folded. */
function foldLabels(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('.react-flow__edge-text'), (text) => text.textContent ?? '').filter((text) =>
      text.includes('folded'),
    ),
  );
}

describe('folding arms on the canvas', () => {
  let editor: Editor | undefined;

  beforeAll(async () => {
    editor = await openEditor();
    await trpcCall(editor.app.api, 'flows.create', { doc: FLOW }, 'POST');
    // At 1×, so edge labels are drawn (far out they are not: editor/canvas/far.ts).
    await editor.page.goto(`${editor.app.url}#/flows/fold-arms?view=40,20,1`);
    await editor.page.getByTestId('node-a1').waitFor();
  });

  afterAll(async () => {
    await editor?.close();
  });

  it('folds a parallel step: its branches hide behind one "3 steps folded" edge, and come back', async () => {
    const { page } = editor!;
    expect(await drawn(page, ARMS.fan)).toBe(3);
    await page.getByRole('button', { name: 'Collapse fan' }).click();
    await expect.poll(() => drawn(page, ARMS.fan)).toBe(0);
    await expect.poll(() => foldLabels(page)).toEqual(['3 steps folded']);
    await expect.poll(() => page.locator('[aria-label="3 steps folded in fan"]').count()).toBe(1);
    // The other fan-out, the join and the step before stay (the last one may be out of view).
    expect(await drawn(page, [...ARMS.pick, 'first', 'fan'])).toBe(4);
    expect(await page.locator('.react-flow__node[data-id="fan/join"]').count()).toBe(1);

    await page.getByRole('button', { name: 'Expand fan' }).click();
    await expect.poll(() => drawn(page, ARMS.fan)).toBe(3);
    await expect.poll(() => foldLabels(page)).toEqual([]);
    expect(editor!.errors).toEqual([]);
  });

  it('folds a branch step and a parallel together, each with its own count', async () => {
    const { page } = editor!;
    await page.getByRole('button', { name: 'Collapse pick' }).click();
    await expect.poll(() => drawn(page, ARMS.pick)).toBe(0);
    await expect.poll(() => foldLabels(page)).toEqual(['2 steps folded']);
    await page.getByRole('button', { name: 'Collapse fan' }).click();
    await expect.poll(() => drawn(page, ARMS.fan)).toBe(0);
    await expect.poll(async () => (await foldLabels(page)).sort()).toEqual(['2 steps folded', '3 steps folded']);

    await page.getByRole('button', { name: 'Expand pick' }).click();
    await expect.poll(() => drawn(page, ARMS.pick)).toBe(2);
    // Unfolding one leaves the other folded.
    expect(await drawn(page, ARMS.fan)).toBe(0);
    await page.getByRole('button', { name: 'Expand fan' }).click();
    await expect.poll(() => drawn(page, ARMS.fan)).toBe(3);
    await expect.poll(() => foldLabels(page)).toEqual([]);
    // A view, not an edit: the flow has nothing unsaved.
    await expect.poll(() => page.getByRole('button', { name: 'Save flow' }).isDisabled()).toBe(true);
    expect(editor!.errors).toEqual([]);
  });
});
