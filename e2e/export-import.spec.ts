/**
 * Export and import as TypeScript, through the UI: an example flow (content-moderation: branch,
 * parallel, code, llm, fail, transform) is opened in the editor; the Export dialog previews the
 * weft module (CodeMirror, `defineFlow`), shows the Temporal target's two files, copies and
 * downloads the weft file; unsaved edits are exported as they are on the canvas; that file is imported from the flow list as a NEW flow (its id is
 * taken, so it becomes `content-moderation-2`), which opens with the same nodes on the canvas
 * and the same steps in the API. A broken file shows its problems with line numbers and creates
 * nothing. The dialog's screenshot is e2e/screenshots/export-dialog.png.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Editor, openEditor, ROOT, SCREENSHOTS } from './support/app.ts';
import { trpcCall } from './support/trpc.ts';

const FLOW_ID = 'content-moderation';

describe('export a flow as TypeScript and import it back', () => {
  let editor: Editor | undefined;

  beforeAll(async () => {
    editor = await openEditor();
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await editor?.close();
  });

  it('round-trips through the Export dialog and the flow list', async () => {
    const { page, app, errors } = editor!;
    try {
      await scenario();
    } catch (error) {
      await page.screenshot({ path: join(SCREENSHOTS, 'failure-export-import.png') }).catch(() => undefined);
      throw error;
    }
    // The broken import's 400 is the one expected browser error.
    expect(
      errors.filter((error) => !/status of 400/.test(error)),
      app.output(),
    ).toEqual([]);
  });

  /** A tRPC call over HTTP to this spec's server. */
  function api<T>(path: string, input: unknown, method: 'GET' | 'POST' = 'GET'): Promise<T> {
    return trpcCall<T>(editor!.app.api, path, input, method);
  }

  async function scenario() {
    const { page, context, app } = editor!;
    const doc = JSON.parse(readFileSync(join(ROOT, `examples/${FLOW_ID}.json`), 'utf8')) as { steps: unknown };
    await api('flows.create', { doc }, 'POST');

    const nodeIds = async () =>
      (await page.locator('.react-flow__node').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-id'))))
        .filter((id): id is string => id !== null)
        .sort();
    const fitAll = () => page.getByRole('button', { name: /fit view/i }).click();

    // The example on the canvas.
    await page.goto(`${app.url}#/flows/${FLOW_ID}`);
    await page.locator('.react-flow__node').first().waitFor({ timeout: 20_000 });
    await fitAll();
    const original = await nodeIds();
    expect(original.length).toBeGreaterThan(5);

    // Export: the weft target first, previewed with syntax highlighting.
    await page.getByRole('button', { name: 'Export as TypeScript' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export Content moderation as TypeScript' });
    await dialog.waitFor();
    expect(await dialog.getByRole('tab', { name: 'Weft' }).getAttribute('aria-selected')).toBe('true');
    const preview = dialog.locator('.cm-content');
    await expect.poll(() => preview.textContent(), { timeout: 15_000 }).toContain('defineFlow');
    expect(await preview.getAttribute('aria-label')).toBe(`Preview of ${FLOW_ID}.ts`);
    expect(await preview.getAttribute('contenteditable')).toBe('false');
    // Highlighted: CodeMirror's highlighter wrapped tokens (keywords, strings) in spans.
    expect(await dialog.locator('.cm-line span').count()).toBeGreaterThan(10);

    // Temporal is two files, each with its own tab.
    await dialog.getByRole('tab', { name: 'Temporal' }).click();
    const files = dialog.getByRole('tablist', { name: 'Exported files' });
    await files.getByRole('tab', { name: `${FLOW_ID}.workflow.ts` }).waitFor({ timeout: 15_000 });
    await files.getByRole('tab', { name: `${FLOW_ID}.activities.ts` }).click();
    await expect.poll(() => preview.getAttribute('aria-label')).toBe(`Preview of ${FLOW_ID}.activities.ts`);
    await dialog.getByRole('button', { name: 'Download 2 files' }).waitFor();

    // Back to weft: the screenshot, Copy (the clipboard holds the module) and Download.
    await dialog.getByRole('tab', { name: 'Weft' }).click();
    await expect.poll(() => preview.getAttribute('aria-label')).toBe(`Preview of ${FLOW_ID}.ts`);
    await dialog.screenshot({ path: join(SCREENSHOTS, 'export-dialog.png') });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await dialog.getByRole('button', { name: 'Copy code' }).click();
    await page.getByText(`Copied ${FLOW_ID}.ts`).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain('export default defineFlow');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      dialog.getByRole('button', { name: 'Download', exact: true }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${FLOW_ID}.ts`);
    // Saved under its own name (download.path() is a name-less temporary file).
    const file = join(await mkdtemp(join(tmpdir(), 'weft-export-')), download.suggestedFilename());
    await download.saveAs(file);
    const source = readFileSync(file, 'utf8');
    expect(source).toContain('export default defineFlow');
    expect(source.trim()).toBe(copied.trim());
    const served = await api<{ files: { path: string; contents: string }[] }>('flows.exportCode', {
      id: FLOW_ID,
      target: 'weft',
    });
    expect(source).toBe(served.files[0]!.contents);

    await dialog.getByRole('button', { name: 'Close export' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Unsaved edits are exported as they are on the canvas (flows.exportDocCode), not saved.
    await page.getByRole('textbox', { name: 'Flow name' }).fill('Moderation draft');
    await page.getByText('● unsaved').waitFor();
    await page.getByRole('button', { name: 'Export as TypeScript' }).click();
    const draft = page.getByRole('dialog', { name: 'Export Moderation draft as TypeScript' });
    await draft.getByText('Includes your unsaved changes.').waitFor();
    await expect
      .poll(() => draft.locator('.cm-content').textContent(), { timeout: 15_000 })
      .toContain('Moderation draft');
    // Escape closes the dialog.
    await page.keyboard.press('Escape');
    await draft.waitFor({ state: 'detached' });
    expect((await api<{ name: string }>('flows.get', { id: FLOW_ID })).name).toBe('Content moderation');

    // Import that file from the flow list: a new flow, opened in the editor. The draft name is
    // an unsaved edit: the editor asks before dropping it.
    await page.getByRole('link', { name: 'Back to all flows' }).click();
    await page
      .getByRole('alertdialog', { name: 'Leave without saving?' })
      .getByRole('button', { name: 'Leave without saving' })
      .click();
    const importButton = page.getByRole('button', { name: 'Import a TypeScript flow file' });
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), importButton.click()]);
    await chooser.setFiles(file);
    await page.waitForURL(new RegExp(`#/flows/${FLOW_ID}-2$`));
    await page.getByText(`Imported Content moderation as ${FLOW_ID}-2: a flow '${FLOW_ID}' exists already`).waitFor();
    await page.locator('.react-flow__node').first().waitFor({ timeout: 20_000 });
    await fitAll();
    await expect.poll(nodeIds).toEqual(original);

    // The same steps, as the API has them.
    type Stored = { id: string; version: number; doc: { steps: unknown } };
    const imported = await api<Stored>('flows.get', { id: `${FLOW_ID}-2` });
    const source0 = await api<Stored>('flows.get', { id: FLOW_ID });
    expect(imported.version).toBe(1);
    expect(imported.doc.steps).toEqual(source0.doc.steps);
    expect(source0.doc.steps).toEqual(doc.steps);

    // A file that does not import: its problems with line numbers, and no flow created.
    await page.getByRole('link', { name: 'Back to all flows' }).click();
    const broken = Buffer.from(
      [
        "import { defineFlow } from '@weft/engine';",
        '',
        "export default defineFlow({ id: 'broken', name: 'Broken' }, async ({ input, step }) => {",
        "  await step.transform('a', { value: process.env.SECRET });",
        '});',
        '',
      ].join('\n'),
    );
    const [again] = await Promise.all([page.waitForEvent('filechooser'), importButton.click()]);
    await again.setFiles({ name: 'broken.ts', mimeType: 'text/plain', buffer: broken });
    const problems = page.getByRole('alertdialog', { name: 'Could not import broken.ts' });
    await problems.waitFor();
    expect(await problems.getByRole('list', { name: 'Import problems' }).textContent()).toMatch(/Line 4, column \d+/);
    await problems.screenshot({ path: join(SCREENSHOTS, 'import-problems.png') });
    await problems.getByRole('button', { name: 'OK' }).click();
    await problems.waitFor({ state: 'detached' });
    const list = await api<{ id: string }[]>('flows.list', {});
    expect(list.map((flow) => flow.id).sort()).toEqual([FLOW_ID, `${FLOW_ID}-2`]);
  }
});
