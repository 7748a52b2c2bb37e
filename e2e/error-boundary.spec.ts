/**
 * Issue 27: a bad address or a screen that throws no longer blanks the whole app. A link with
 * malformed percent-encoding (`#/runs/%E0%A4%A`: `decodeURIComponent` throws on it) opens a
 * "leads nowhere" screen with the reason and a way back; a screen that throws while rendering
 * (here the runs screen fed a run list it cannot draw) shows its error inside its own boundary,
 * the top bar still there, with the same way back to the flow list.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Editor, openEditor, SCREENSHOTS } from './support/app.ts';

const isSearch = (segment: string) => segment.endsWith('runs.search');

describe.each([
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
])('a screen that cannot be shown, at $width×$height', (viewport) => {
  let editor: Editor | undefined;

  beforeAll(async () => {
    editor = await openEditor({ viewport });
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await editor?.close();
  });

  it('a run link with malformed percent-encoding says so and leads back to the flow list', async () => {
    const { page, app, errors } = editor!;
    await page.goto(`${app.url}#/runs/%E0%A4%A`);
    const problem = page.getByRole('alert');
    await problem.getByRole('heading', { name: 'This address leads nowhere' }).waitFor();
    await expect.poll(() => problem.textContent()).toContain('the run id “%E0%A4%A” is not valid percent-encoding');
    // The rest of the app is still drawn around it.
    await page.getByRole('navigation', { name: 'Sections' }).waitFor();
    const back = problem.getByRole('link', { name: 'Back to the flow list' });
    expect(await back.isVisible()).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, `bad-address-${viewport.width}.png`) });

    await back.click();
    await page.waitForURL(/#\/$/);
    await page.getByRole('heading', { name: 'No flows yet' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(errors, app.output()).toEqual([]);
  });

  it('a screen that throws while rendering shows the error in its own boundary, with a way back', async () => {
    const { page, app } = editor!;
    // A run list the runs screen cannot draw (a row that is null): it throws while rendering.
    // The editor batches queries (`/trpc/runs.search,flows.list?batch=1`): answer the others
    // as the server does and put the bad list in runs.search's place.
    const handler = async (route: Route) => {
      const procedures = new URL(route.request().url()).pathname.replace('/trpc/', '').split(',');
      const answer = (await (await route.fetch()).json()) as unknown[];
      const index = procedures.indexOf('runs.search');
      answer[index] = { result: { data: { runs: [null], nextCursor: null } } };
      await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(answer) });
    };
    const searches = (url: URL) => url.pathname.startsWith('/trpc/') && url.pathname.split(',').some(isSearch);
    await page.route(searches, handler);
    try {
      await page.goto(`${app.url}#/runs`);
      const problem = page.getByRole('alert');
      await problem.getByRole('heading', { name: 'Something went wrong in the runs screen' }).waitFor();
      await page.getByRole('navigation', { name: 'Sections' }).waitFor();
      await page.screenshot({ path: join(SCREENSHOTS, `screen-error-${viewport.width}.png`) });

      await problem.getByRole('link', { name: 'Back to the flow list' }).click();
      await page.waitForURL(/#\/$/);
      await page.getByRole('heading', { name: 'No flows yet' }).waitFor();
      expect(await page.getByRole('alert').count()).toBe(0);
    } finally {
      await page.unroute(searches, handler);
    }
  });
});
