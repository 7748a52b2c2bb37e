/**
 * The first ten minutes: a fresh `weft serve` shows the example gallery on the flow list; one
 * click runs an example offline (its input and recorded model turns) and opens the live run,
 * which completes; another copies an example with its sub-flow into the workspace. The start
 * script's demo run (the CLI run it makes before `weft serve`, in the same store) is in the runs
 * screen. Importing examples/research-agent.json on its own names its missing sub-flow and
 * imports it on request, and picking both files imports both. Screenshots land in e2e/screenshots/.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Editor, launchBrowser, openEditor, ROOT, SCREENSHOTS, startApp } from './support/app.ts';

const EXAMPLES = join(ROOT, 'examples');

describe('first run: the example gallery', () => {
  let editor: Editor | undefined;

  beforeAll(async () => {
    editor = await openEditor();
    await mkdir(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await editor?.close();
  });

  it('shows the examples on the flow list of a fresh workspace', async () => {
    const { page } = editor!;
    await page.getByRole('heading', { name: 'No flows yet' }).waitFor();
    const gallery = page.getByRole('list', { name: 'Examples' });
    await gallery.waitFor();
    const card = page.getByRole('listitem', { name: 'Example Support triage' });
    await expect.poll(() => card.getByRole('list', { name: 'Step types' }).textContent()).toMatch(/llm[\s\S]*branch/);
    expect(await card.locator('.example-line').textContent()).toMatch(/^Classifies a support ticket/);
    // The examples that call the demo API say so on their card.
    const research = page.getByRole('listitem', { name: 'Example Research agent' });
    expect(await research.textContent()).toMatch(/demo API at http:\/\/127\.0\.0\.1:8787/);
    expect(await gallery.getByRole('listitem', { name: /^Example / }).count()).toBeGreaterThanOrEqual(9);
    await page.screenshot({ path: join(SCREENSHOTS, 'first-run-gallery.png'), fullPage: true });
  });

  it('runs an example offline with one click and opens the live run, which completes', async () => {
    const { page, errors, app } = editor!;
    await page.getByRole('button', { name: 'Run example Support triage' }).click();
    await page.waitForURL(/#\/runs\/run_/);
    await expect
      .poll(() => page.getByTestId('run-status').getAttribute('data-status'), { timeout: 30_000 })
      .toBe('completed');
    await page.screenshot({ path: join(SCREENSHOTS, 'first-run-example-run.png') });
    // Saved into the workspace on the way.
    await page.goto(app.url);
    await page.getByRole('link', { name: 'Open Support triage' }).waitFor();
    expect(errors, app.output()).toEqual([]);
  });

  it('runs an example that calls the demo API offline too, its http calls answered from a recording', async () => {
    const { page, app } = editor!;
    await page.goto(app.url);
    await page.getByText('Examples', { exact: true }).click();
    await page.getByRole('button', { name: 'Run example Research agent' }).click();
    await page.waitForURL(/#\/runs\/run_/);
    await expect
      .poll(() => page.getByTestId('run-status').getAttribute('data-status'), { timeout: 30_000 })
      .toBe('completed');
    await page.goto(app.url);
  });

  it('copies an example with the sub-flow it spawns and opens it in the editor', async () => {
    const { page } = editor!;
    await page.getByText('Examples', { exact: true }).click();
    await page.getByRole('button', { name: 'Copy Weekly digest to the workspace' }).click();
    await page.waitForURL(/#\/flows\/weekly-digest$/);
    await page.locator('.react-flow__node').first().waitFor();
    await page.goto(`${editor!.app.url}#/`);
    await page.getByRole('link', { name: 'Open Summarize text' }).waitFor();
    await page.getByText('Examples', { exact: true }).click();
    await page.screenshot({ path: join(SCREENSHOTS, 'first-run-examples-section.png'), fullPage: true });
  });
});

describe('first run: importing a flow that uses another', () => {
  let editor: Editor | undefined;

  beforeAll(async () => {
    editor = await openEditor();
  });
  afterAll(async () => {
    await editor?.close();
  });

  it('names the missing sub-flow of research-agent.json and imports it on request', async () => {
    const { page } = editor!;
    await page.getByRole('heading', { name: 'No flows yet' }).waitFor();
    await page.getByLabel('Flow file to import', { exact: true }).setInputFiles(join(EXAMPLES, 'research-agent.json'));
    const dialog = page
      .getByRole('alertdialog', { name: 'A flow it uses is missing' })
      .or(page.getByRole('dialog', { name: 'A flow it uses is missing' }));
    await dialog.waitFor();
    expect(await dialog.textContent()).toMatch(
      /research-agent uses the flow summarize-text, which is not in this workspace/,
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'import-missing-sub-flow.png') });
    // A second pick: the missing file.
    await page
      .getByLabel('Missing flow files to import', { exact: true })
      .setInputFiles(join(EXAMPLES, 'summarize-text.json'));
    await page.getByRole('link', { name: 'Open Research agent' }).waitFor();
    await page.getByRole('link', { name: 'Open Summarize text' }).waitFor();
  });

  it('imports a flow and its sub-flow picked together', async () => {
    const fresh = await startApp();
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(fresh.url);
      await page
        .getByLabel('Flow file to import', { exact: true })
        .setInputFiles([join(EXAMPLES, 'weekly-digest.json'), join(EXAMPLES, 'summarize-text.json')]);
      await page.getByRole('link', { name: 'Open Weekly digest' }).waitFor();
      await page.getByRole('link', { name: 'Open Summarize text' }).waitFor();
    } finally {
      await browser.close();
      await fresh.stop();
    }
  });
});

describe("first run: the start script's demo run", () => {
  it('is in the runs screen of the server started after it', async () => {
    // What scripts/start.sh does: the CLI run, then `weft serve`, both on the same WEFT_DATA.
    const dataDir = await mkdtemp(join(tmpdir(), 'weft-e2e-start-'));
    const run = spawnSync(
      process.execPath,
      [
        'apps/api/src/cli/main.ts',
        'run',
        'examples/summarize-text.json',
        '--input',
        '@examples/summarize-text.input.json',
        '--json',
      ],
      { cwd: ROOT, env: { ...process.env, WEFT_DATA: dataDir, DATABASE_URL: '' }, encoding: 'utf8' },
    );
    const { runId } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { runId: string };
    const app = await startApp({ dataDir });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(app.url);
      // The flow list of the still flow-less workspace points at it...
      await page.getByRole('link', { name: 'Open the latest run, of summarize-text' }).waitFor();
      // ...and the runs screen lists it.
      await page.goto(`${app.url}#/runs`);
      await page
        .getByRole('table', { name: 'Runs' })
        .getByRole('link', { name: new RegExp(runId) })
        .first()
        .waitFor();
    } finally {
      await browser.close();
      await app.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
