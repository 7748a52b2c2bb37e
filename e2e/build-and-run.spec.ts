/**
 * The main spec: build a flow in the editor (an `llm` on mock:echo, a `parallel` of two
 * `code` steps, an `approval`), fix a validation error the editor points at, save, reload and
 * see it unchanged, run it, see live statuses and streamed text, approve on the canvas, see the
 * output.
 *
 * Through the UI: creating the flow (its starter step is the `llm` on mock:echo), adding the
 * `parallel` and the `approval` (palette click-to-add after the selected node), the bad
 * expression and its fix (inspector JSON tab), the problems panel, save, reload, the input form,
 * Run, the live statuses, the streamed text and Approve on the canvas.
 * Through the API: the two `code` steps inside the parallel's arms (one `flows.save` from the
 * page), because the canvas has no click-to-add into an empty arm yet — that takes dragging
 * edges by their handles, which this spec does not attempt.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Editor, openEditor, SCREENSHOTS } from './support/app.ts';

describe('build, fix, save, run and approve a flow in the editor', () => {
  let editor: Editor | undefined;

  beforeAll(async () => {
    editor = await openEditor();
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await editor?.close();
  });

  it('works end to end', async () => {
    const { page, app, errors } = editor!;
    try {
      await scenario();
    } catch (error) {
      await page.screenshot({ path: join(SCREENSHOTS, 'failure-build-and-run.png') }).catch(() => undefined);
      throw error;
    }
    expect(errors, app.output()).toEqual([]);
  });

  async function scenario() {
    const { page } = editor!;
    const nodeIds = async () =>
      (await page.locator('.react-flow__node').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-id'))))
        .filter((id): id is string => id !== null)
        .sort();
    // Added steps can land outside the view (the canvas renders only what is visible): fit it.
    const fitAll = () => page.getByRole('button', { name: /fit view/i }).click();

    // A new flow: its one step is an llm on mock:echo.
    await page.getByRole('textbox', { name: 'New flow name' }).fill('Review flow');
    await page.getByRole('button', { name: 'Create flow' }).click();
    await page.waitForURL(/#\/flows\/review-flow$/);
    await page.getByTestId('node-reply').waitFor();

    // Palette: a parallel after the llm, an approval after the parallel (after its join).
    await page.getByTestId('node-reply').click();
    await page.getByRole('button', { name: 'Add Parallel step' }).click();
    await page.getByTestId('node-parallel').waitFor();
    await page.getByRole('button', { name: 'Add Approval step' }).click();
    await fitAll();
    await page.getByTestId('node-approval').waitFor();
    await page.getByRole('button', { name: 'Save flow' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Save flow' }).isDisabled()).toBe(true);

    // The parallel's arms get a code step each (API: see the header).
    await page.evaluate(async () => {
      const got = await (await fetch('/trpc/flows.get?input=' + encodeURIComponent('{"id":"review-flow"}'))).json();
      const doc = got.result.data.doc as { steps: { id: string; branches?: unknown }[] };
      const parallel = doc.steps.find((step) => step.id === 'parallel')!;
      parallel.branches = {
        a: [{ id: 'left', type: 'code', source: 'return { side: "left", n: 1 };' }],
        b: [{ id: 'right', type: 'code', source: 'return { side: "right", n: 2 };' }],
      };
      const saved = await fetch('/trpc/flows.save', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'review-flow', doc }),
      });
      if (!saved.ok) throw new Error(await saved.text());
    });
    await page.reload();
    await fitAll();
    await page.getByTestId('node-left').waitFor();
    await page.getByTestId('node-right').waitFor();

    // A bad expression: the problem is listed and pinned to the node, and Run is disabled.
    await page.getByTestId('node-reply').click();
    await page.getByRole('tab', { name: 'JSON' }).click();
    const config = page.getByRole('textbox', { name: 'Config of reply' });
    await config.fill(JSON.stringify({ model: 'mock:echo', prompt: 'Review {{ input.text ' }));
    const problem = page.getByRole('button', { name: /^Problem at reply: .*not closed/ });
    await problem.waitFor();
    expect(await page.getByRole('button', { name: 'Run flow' }).isDisabled()).toBe(true);
    await page.getByTestId('node-reply').locator('.problem-badge').waitFor();
    await problem.click();
    await config.fill(JSON.stringify({ model: 'mock:echo', prompt: 'Review {{ input.text }}' }));
    await problem.waitFor({ state: 'detached' });

    // Save, reload: the same nodes, nothing unsaved.
    await page.getByRole('button', { name: 'Save flow' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Save flow' }).isDisabled()).toBe(true);
    await fitAll();
    await page.getByTestId('node-approval').waitFor();
    const before = await nodeIds();
    expect(before).toEqual(expect.arrayContaining(['reply', 'parallel', 'left', 'right', 'approval']));
    await page.reload();
    await fitAll();
    await page.getByTestId('node-approval').waitFor();
    await expect.poll(nodeIds).toEqual(before);
    expect(await page.getByText('● unsaved').count()).toBe(0);

    // Run with the input form (generated from the flow's input schema).
    await page.getByRole('textbox', { name: 'Input text' }).fill('hello weft');
    await page.getByRole('button', { name: 'Run flow' }).click();

    // Live: the llm streams its text and completes, both arms run, the approval waits on the canvas.
    const canvas = page.getByTestId('node-approval');
    await expect.poll(() => canvas.getAttribute('data-status'), { timeout: 20_000 }).toBe('waiting');
    expect(await page.getByTestId('node-reply').getAttribute('data-status')).toBe('completed');
    expect(await page.getByTestId('node-reply').textContent()).toContain('hello weft');
    expect(await page.getByTestId('node-left').getAttribute('data-status')).toBe('completed');
    expect(await page.getByTestId('node-right').getAttribute('data-status')).toBe('completed');
    await page.screenshot({ path: join(SCREENSHOTS, 'editor-running.png') });
    await page
      .getByRole('region', { name: 'Run', exact: true })
      .screenshot({ path: join(SCREENSHOTS, 'run-panel.png') });

    // Approve on the canvas: the run completes with its output.
    await canvas.getByRole('textbox', { name: 'Comment on approval' }).fill('looks good');
    // By keyboard: the expanded approval card overlaps the End pill drawn right below it, which
    // would take a pointer click (a layout gap of the canvas).
    await canvas.getByRole('button', { name: 'Approve approval' }).press('Enter');
    await expect
      .poll(() => page.getByTestId('run-status').getAttribute('data-status'), { timeout: 15_000 })
      .toBe('completed');
    expect(await canvas.getAttribute('data-status')).toBe('completed');
    await page.getByRole('region', { name: 'Run output' }).waitFor();
    // The run is listed, and opening it replays it on the canvas.
    const runLink = page.getByRole('link', { name: /^Open run .* \(completed\)$/ });
    await runLink.click();
    await page.waitForURL(/#\/flows\/review-flow\/runs\/[^/]+$/);
    await expect.poll(() => page.getByTestId('node-approval').getAttribute('data-status')).toBe('completed');
    expect(await page.getByTestId('node-reply').textContent()).toContain('hello weft');
  }
});
