/**
 * Smoke: `weft serve` serves the built editor at its printed URL; the page loads in Chromium with
 * no console errors; the flow list starts empty, a flow is created from it and opens on the
 * canvas, and the list then shows it. Screenshots for the README land in e2e/screenshots/.
 *
 * The editor must be built (the global setup builds it; WEFT_WEB_DIST may name another build):
 * without a build the server answers its 503 "not built" page, and this spec fails on it rather
 * than passing. That page has its own test (apps/api/src/server/http.test.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Editor, openEditor, SCREENSHOTS, WEB_DIST } from './support/app.ts';

const INDEX = join(WEB_DIST, 'index.html');

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
    expect(existsSync(INDEX), `no editor build at ${INDEX}: run pnpm --filter @weft/web build`).toBe(true);
    expect(app.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    // The URL answers the build's own index.html, not the 503 page that says how to build it.
    const served = await fetch(app.url);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe(readFileSync(INDEX, 'utf8'));
    expect(await page.title()).toMatch(/Weft/);

    // The app rendered (not an empty root), and the API it talks to answers on the same origin.
    await page.getByRole('link', { name: /Weft/ }).first().waitFor();
    const health = await page.evaluate(async () => (await fetch('/health')).json());
    expect(health).toEqual({ ok: true });
    await page.waitForLoadState('networkidle', { timeout: 10_000 }).catch(() => undefined);
    expect(errors, app.output()).toEqual([]);
  });

  it('shows the empty flow list, creates a flow and opens it on the canvas', async () => {
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
