/**
 * Editing papercuts: a guard before unsaved edits are lost (opening a run from the list, leaving
 * the flow, closing the tab); deleting a step re-joins its neighbours (clicked, or box-selected
 * with its edges); steps copied in one tab paste from the system clipboard into another flow in
 * another tab, after the selected step.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Editor, openEditor, type Page, SCREENSHOTS } from './support/app.ts';
import { trpcCall } from './support/trpc.ts';

const chain = (id: string, name: string, steps: string[]) => ({
  irVersion: 1,
  id,
  name,
  steps: steps.map((step, index) => ({ id: step, type: 'transform', value: `=${index + 1}` })),
});

/** An edge of the canvas (an SVG group, never "visible" to Playwright: waited for as attached). */
const edge = (page: Page, from: string, to: string) => ({
  waitFor: () =>
    page.locator(`.react-flow__edge[aria-label="Edge from ${from} to ${to}"]`).waitFor({ state: 'attached' }),
});

describe('editing papercuts', () => {
  let editor: Editor | undefined;
  let api: string;

  beforeAll(async () => {
    editor = await openEditor();
    api = editor.app.api;
    await editor.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api });
    await trpcCall(api, 'flows.create', { doc: chain('letters', 'Letters', ['one', 'two', 'three']) }, 'POST');
    await trpcCall(api, 'flows.create', { doc: chain('other', 'Other', ['solo']) }, 'POST');
  });
  afterAll(async () => {
    await editor?.close();
  });

  const openFlow = async (page: Page, id: string) => {
    await page.goto(`${editor!.app.url}#/flows/${id}`);
    await page.locator('.react-flow__node').first().waitFor();
  };

  it('deleting a step re-joins its neighbours, clicked or box-selected', async () => {
    const page = await editor!.context.newPage();
    await openFlow(page, 'letters');
    await page.getByTestId('node-two').click();
    await page.keyboard.press('Delete');
    await edge(page, 'one', 'three').waitFor();
    expect(await page.getByTestId('node-two').count()).toBe(0);
    await page.keyboard.press('Control+z');
    await page.getByTestId('node-two').waitFor();
    // A box around the step selects its edges too: still re-joined.
    const box = (await page.getByTestId('node-two').boundingBox())!;
    await page.keyboard.down('Shift');
    await page.mouse.move(box.x - 20, box.y - 12);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width + 20, box.y + box.height + 12, { steps: 8 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await page.keyboard.press('Delete');
    await edge(page, 'one', 'three').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'papercuts-delete-rejoins.png') });
    await page.close();
  });

  it('asks before unsaved edits are lost: leaving the flow, opening a run, closing the tab', async () => {
    const page = await editor!.context.newPage();
    const { runId } = await trpcCall<{ runId: string }>(api, 'runs.start', { flowId: 'letters' }, 'POST');
    await openFlow(page, 'letters');
    await page.getByRole('link', { name: new RegExp(`Open run ${runId}`) }).waitFor();
    // An unsaved edit: the step `two` goes.
    await page.getByTestId('node-two').click();
    await page.keyboard.press('Delete');
    await edge(page, 'one', 'three').waitFor();

    const guard = page.getByRole('alertdialog', { name: 'Leave without saving?' });
    await page.getByRole('link', { name: 'Back to all flows' }).click();
    await guard.waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'papercuts-unsaved-guard.png') });
    await guard.getByRole('button', { name: 'Stay', exact: true }).click();
    expect(page.url()).toMatch(/#\/flows\/letters(\?view=.*)?$/);
    expect(await page.getByTestId('node-two').count()).toBe(0);

    await page.getByRole('link', { name: new RegExp(`Open run ${runId}`) }).click();
    await guard.waitFor();
    await guard.getByRole('button', { name: 'Stay', exact: true }).click();
    expect(page.url()).toMatch(/#\/flows\/letters(\?view=.*)?$/);

    // Closing the tab: the browser's own question (dismissed: the tab stays, edits and all).
    const asked = new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.type());
        void dialog.dismiss();
      }),
    );
    await page.close({ runBeforeUnload: true });
    expect(await asked).toBe('beforeunload');
    expect(page.isClosed()).toBe(false);
    expect(await page.getByTestId('node-two').count()).toBe(0);

    // Leaving on purpose: the run opens, the edit is given up.
    await page.getByRole('link', { name: new RegExp(`Open run ${runId}`) }).click();
    await guard.getByRole('button', { name: 'Leave without saving' }).click();
    await page.waitForURL(new RegExp(`#/flows/letters/runs/${runId}$`));
    await page.getByTestId('node-two').waitFor();
    await page.close();
  });

  it('pastes steps copied in one tab from the system clipboard into another flow, after the selection', async () => {
    const { context } = editor!;
    const source = await context.newPage();
    await openFlow(source, 'letters');
    await source.getByTestId('node-two').click();
    await source.keyboard.press('Control+c');
    const copied = await source.evaluate(() => navigator.clipboard.readText());
    expect(JSON.parse(copied)).toMatchObject({ kind: 'weft/steps', steps: [{ id: 'two', type: 'transform' }] });

    const target = await context.newPage();
    await openFlow(target, 'other');
    await target.getByTestId('node-solo').click();
    await target.keyboard.press('Control+v');
    await target.getByTestId('node-two').waitFor();
    await edge(target, 'solo', 'two').waitFor();
    await edge(target, 'two', 'End').waitFor();
    // Again with the toolbar's Paste: a fresh id, after the selected step (the one just pasted).
    await target.getByRole('button', { name: 'Paste steps' }).click();
    await edge(target, 'two', 'two_2').waitFor();
    await target.screenshot({ path: join(SCREENSHOTS, 'papercuts-paste-between-flows.png') });
    await source.close();
    await target.close({ runBeforeUnload: false });
  });
});
