/**
 * Smoke: `weft serve` serves the built editor at its printed URL; the page loads in Chromium with
 * no console errors; the flow list starts empty, a flow is created from it and opens on the
 * canvas, and the list then shows it. Screenshots for the README land in e2e/screenshots/.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Editor, openEditor, SCREENSHOTS, WEB_DIST } from './support/app.ts';

const built = () => existsSync(join(WEB_DIST, 'index.html'));

describe('the editor, served by weft serve', () => {
  let editor: Editor | undefined;

  beforeAll(async () => {
    editor = await openEditor();
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await editor?.close();
  });

  it('loads at the printed URL with no console errors', async () => {
    const { page, app, errors } = editor!;
    expect(app.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(await page.title()).toMatch(/Weft/);

    if (!built()) {
      // No build to serve (WEFT_WEB_DIST points at nothing): the server says how to make one.
      await expect.poll(() => page.getByText('pnpm --filter @weft/web build').count()).toBeGreaterThan(0);
      // The page's own 503 is the one expected browser error.
      expect(errors.filter((error) => !/status of 503/.test(error))).toEqual([]);
      return;
    }

    // The app rendered (not an empty root), and the API it talks to answers on the same origin.
    await page.getByRole('link', { name: /Weft/ }).first().waitFor();
    const health = await page.evaluate(async () => (await fetch('/health')).json());
    expect(health).toEqual({ ok: true });
    await page.waitForLoadState('networkidle', { timeout: 10_000 }).catch(() => undefined);
    expect(errors, app.output()).toEqual([]);
  });

  it('shows the empty flow list, creates a flow and opens it on the canvas', async ({ skip }) => {
    if (!built()) skip('the editor is not built');
    const { page, app, errors } = editor!;
    await page.getByRole('heading', { name: 'No flows yet' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'flow-list-empty.png') });

    await page.getByRole('textbox', { name: 'New flow name' }).fill('Smoke flow');
    await page.getByRole('button', { name: 'Create flow' }).click();
    await page.waitForURL(/#\/flows\/smoke-flow$/);
    // The starter flow's one step is on the canvas.
    await page.locator('.react-flow__node').first().waitFor({ timeout: 20_000 });
    await page.waitForLoadState('networkidle', { timeout: 10_000 }).catch(() => undefined);
    await page.screenshot({ path: join(SCREENSHOTS, 'editor.png') });

    // Saved on the server, and listed when going back.
    const listed = await page.evaluate(async () => {
      const answer = await (await fetch('/trpc/flows.list')).json();
      return (answer.result.data as { id: string }[]).map((flow) => flow.id);
    });
    expect(listed).toEqual(['smoke-flow']);
    await page.getByRole('link', { name: 'Weft: all flows' }).click();
    await page.getByRole('link', { name: 'Open Smoke flow' }).waitFor();
    expect(errors, app.output()).toEqual([]);
  });
});
