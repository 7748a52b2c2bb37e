/**
 * The issue's main spec, through the UI only (no API calls build the flow): from an empty canvas
 * build a flow with an `llm` (mock:echo), a `parallel` of two `code` steps and an `approval`; fix
 * a validation error the editor points at; save; reload and see it unchanged; run it; see live
 * statuses, durations and streamed text; approve on the canvas; see the output.
 *
 * How it is built: the new flow's starter step is deleted (empty canvas: Start → End), then
 * palette clicks add the llm, the parallel after it and the approval after the parallel's join;
 * each of the parallel's empty branches is filled by selecting its edge (accessible name
 * `Edge from parallel (branch a) to parallel/join`) and clicking Code in the palette, which
 * inserts the step on that edge. The code steps' sources are typed into the inspector's
 * CodeMirror editor (Form tab); the llm's prompt goes through the JSON tab.
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
    const palette = (label: string) => page.getByRole('button', { name: `Add ${label} step` }).click();
    // An edge is selected by a click on it, or by keyboard (focus it, Enter).
    const selectEdge = async (name: string, by: 'click' | 'keyboard') => {
      const edge = page.getByRole('group', { name, exact: true });
      if (by === 'click') await edge.click();
      else {
        await edge.focus();
        await edge.press('Enter');
      }
      await expect.poll(() => edge.getAttribute('class')).toMatch(/\bselected\b/);
    };
    const setSource = async (id: string, source: string) => {
      await page.getByTestId(`node-${id}`).waitFor();
      const code = page
        .getByRole('region', { name: 'Inspector' })
        .getByRole('textbox', { name: 'Source (JavaScript)' });
      // The code editor loads lazily; a fill that lands before it has taken over is lost, so
      // fill again until the editor shows the source (a busy machine can take seconds).
      await expect
        .poll(
          async () => {
            if ((await code.textContent()) !== source) await code.fill(source);
            return code.textContent();
          },
          { timeout: 15_000 },
        )
        .toBe(source);
    };

    // A new flow, emptied: its starter llm is deleted, leaving Start → End.
    await page.getByRole('textbox', { name: 'New flow name' }).fill('Review flow');
    await page.getByRole('button', { name: 'Create flow' }).click();
    await page.waitForURL(/#\/flows\/review-flow$/);
    await page.getByTestId('node-reply').click();
    await page.getByRole('button', { name: 'Delete selected' }).click();
    await page.getByTestId('node-reply').waitFor({ state: 'detached' });
    await page.getByRole('group', { name: 'Edge from Start to End', exact: true }).waitFor();

    // Palette: the llm (defaults to mock:echo), then a parallel after it.
    await palette('LLM');
    await page.getByTestId('node-llm').waitFor();
    await palette('Parallel');
    await fitAll();
    await page.getByTestId('node-parallel').waitFor();

    // Each empty branch: select its edge, click Code — the step lands in that branch.
    await selectEdge('Edge from parallel (branch a) to parallel/join', 'click');
    await palette('Code');
    await setSource('code', 'return { side: "left", n: 1 };');
    await fitAll();
    await selectEdge('Edge from parallel (branch b) to parallel/join', 'keyboard');
    await palette('Code');
    await setSource('code_2', 'return { side: "right", n: 2 };');
    await page.getByRole('group', { name: 'Edge from code to parallel/join', exact: true }).waitFor();
    await page.getByRole('group', { name: 'Edge from code_2 to parallel/join', exact: true }).waitFor();

    // The approval after the parallel (that is, after its join).
    await page.getByTestId('node-parallel').click();
    await palette('Approval');
    await fitAll();
    await page.getByTestId('node-approval').waitFor();
    await page.getByRole('group', { name: 'Edge from parallel/join to approval', exact: true }).waitFor();

    // A bad expression: the problem is listed and pinned to the node, and Run is disabled.
    await page.getByTestId('node-llm').click();
    await page.getByRole('tab', { name: 'JSON' }).click();
    const config = page.getByRole('textbox', { name: 'Config of llm' });
    await config.fill(JSON.stringify({ model: 'mock:echo', prompt: 'Review {{ input.text ' }));
    const problem = page.getByRole('button', { name: /^Problem at llm: .*not closed/ });
    await problem.waitFor();
    expect(await page.getByRole('button', { name: 'Run flow' }).isDisabled()).toBe(true);
    await page.getByTestId('node-llm').locator('.problem-badge').waitFor();
    await problem.click();
    await config.fill(JSON.stringify({ model: 'mock:echo', prompt: 'Review {{ input.text }}' }));
    await problem.waitFor({ state: 'detached' });

    // Save, reload: the same nodes, nothing unsaved.
    await page.getByRole('button', { name: 'Save flow' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Save flow' }).isDisabled()).toBe(true);
    await fitAll();
    await page.getByTestId('node-approval').waitFor();
    const before = await nodeIds();
    expect(before).toEqual(expect.arrayContaining(['llm', 'parallel', 'code', 'code_2', 'approval']));
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
    const llm = page.getByTestId('node-llm');
    expect(await llm.getAttribute('data-status')).toBe('completed');
    expect(await llm.textContent()).toContain('hello weft');
    // Done steps show how long they took.
    expect(await llm.getByTestId('node-duration').textContent()).toMatch(/^\d+(\.\d)? (ms|s)$/);
    expect(await page.getByTestId('node-code').getAttribute('data-status')).toBe('completed');
    expect(await page.getByTestId('node-code_2').getAttribute('data-status')).toBe('completed');
    await page.getByTestId('node-code_2').getByTestId('node-duration').waitFor();
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
    expect(await page.getByTestId('run-output').textContent()).toContain('looks good');
    // The code steps ran the sources typed into the inspector.
    await page.getByTestId('node-code').click();
    const inspector = page.getByRole('region', { name: 'Inspector' });
    await expect.poll(() => inspector.textContent()).toContain('"side": "left"');
    await page.getByTestId('node-code_2').click();
    await expect.poll(() => inspector.textContent()).toContain('"side": "right"');
    // The run is listed, and opening it replays it on the canvas.
    const runLink = page.getByRole('link', { name: /^Open run .* \(completed\)$/ });
    await runLink.click();
    await page.waitForURL(/#\/flows\/review-flow\/runs\/[^/]+$/);
    await expect.poll(() => page.getByTestId('node-approval').getAttribute('data-status')).toBe('completed');
    expect(await page.getByTestId('node-llm').textContent()).toContain('hello weft');
  }
});
