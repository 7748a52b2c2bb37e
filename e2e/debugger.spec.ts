/**
 * Issue 13, the run debugger, in the browser: the research-agent example (imported from
 * `examples/`, run from the editor with its recorded model turns, calling the demo API over
 * http) is found on the runs screen by a word of its output and opened; scrubbed back to the
 * moment its second tool call had been asked for but not answered, where canvas, timeline and
 * transcript must agree; played to the end; its permalink opened in a new page shows the same
 * moment. Then a run whose `spawn` child failed: into the child and back by the breadcrumbs.
 *
 * The run view's controls are found by the names agreed for it: region "Timeline" with one
 * tree row per bar (found by its step id), slider "Event position", button "Play", region
 * "Conversation", navigation "Run breadcrumbs". Links are found by the addresses
 * `components/route.ts` writes (`#/runs/<id>?at=&step=`); a step's state at the scrubbed moment
 * by the `data-status` the canvas nodes and the timeline bars carry.
 *
 * The `it`s are one story and run in order; each names what it needs from the one before.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoApi, startDemoApi } from '../packages/adapters/conformance/demo-api.ts';
import { type Editor, openEditor, ROOT, SCREENSHOTS } from './support/app.ts';
import { type RunEventLike, storedEvents, trpcCall } from './support/trpc.ts';

const EXAMPLES = join(ROOT, 'examples');
const DOCS = join(ROOT, 'docs');
/** Where the example files say the demo API is (packages/adapters/conformance/examples.ts). */
const DEMO_DEFAULT_BASE = 'http://127.0.0.1:8787';

/** A child flow that always fails, and a parent that spawns it. */
const CHILD = {
  irVersion: 1,
  id: 'reserve-stock',
  name: 'Reserve stock',
  input: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
  steps: [
    { id: 'check', type: 'transform', value: { sku: '=input.sku', wanted: 3 } },
    { id: 'refuse', type: 'fail', message: 'No stock left for {{ input.sku }}' },
  ],
};
const PARENT = {
  irVersion: 1,
  id: 'order-batch',
  name: 'Order batch',
  input: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
  steps: [
    { id: 'prepare', type: 'transform', value: '=input.sku' },
    { id: 'reserve', type: 'spawn', flow: 'reserve-stock', input: { sku: '=input.sku' } },
    { id: 'confirm', type: 'transform', value: 'confirmed' },
  ],
};

describe('the run debugger', () => {
  let editor: Editor | undefined;
  let demo: DemoApi | undefined;
  /** Set by each step for the next. */
  let researchRunId = '';
  let events: RunEventLike[] = [];
  let requested = -1;
  let permalink = '';
  let transcriptThen = '';

  beforeAll(async () => {
    demo = await startDemoApi();
    // The agent's page fetch goes to the demo API on loopback, which http steps refuse unless allowed.
    editor = await openEditor({ env: { WEFT_HTTP_ALLOW_PRIVATE: '1' } });
  });

  afterAll(async () => {
    await editor?.close();
    await demo?.close();
  });

  const api = <T>(path: string, input: unknown, method: 'GET' | 'POST' = 'GET') =>
    trpcCall<T>(editor!.app.api, path, input, method);

  /** Runs `fn`; on failure saves a screenshot named after the step and adds the server's output. */
  async function guarded(name: string, fn: (page: Page) => Promise<void>, page = editor!.page) {
    const { app, errors } = editor!;
    try {
      await fn(page);
    } catch (error) {
      await page.screenshot({ path: join(SCREENSHOTS, `failure-debugger-${name}.png`) }).catch(() => undefined);
      throw new Error(`${(error as Error).message}\n--- server output ---\n${app.output().slice(-4000)}`, {
        cause: error,
      });
    }
    expect(errors, app.output()).toEqual([]);
  }

  const nodeStatus = (page: Page, id: string) => page.getByTestId(`node-${id}`).getAttribute('data-status');
  const timeline = (page: Page) => page.getByRole('region', { name: 'Timeline' });
  // A bar is a row of the timeline's tree (role treeitem, named by its label and status): found by its step id.
  const bar = (page: Page, stepId: string) =>
    // (a spawn step also has its child run's row under it, with the same step id)
    timeline(page).locator(`[data-testid="timeline-row"][data-step-id="${stepId}"]:not([data-kind="child-run"])`);
  const slider = (page: Page) => page.getByRole('slider', { name: 'Event position' });
  const conversation = (page: Page) => page.getByRole('region', { name: 'Conversation' });
  const runsTable = (page: Page) => page.getByRole('table', { name: 'Runs' });
  const runLinks = (page: Page) => runsTable(page).getByRole('link', { name: /^Open run / });
  /** The runs screen has answered the filters in the address. */
  const listed = (page: Page) => page.locator('main.runs-screen[aria-busy="false"]').waitFor();

  it('imports the research agent and runs it from the editor with its recorded turns', async () => {
    await guarded('run', async (page) => {
      const base = demo!.baseUrl;
      // Imported as a user would: the flow tool `summarize` is the summarize-text flow, so it goes first.
      const fileInput = page.getByLabel('Flow file to import', { exact: true });
      await fileInput.setInputFiles(join(EXAMPLES, 'summarize-text.json'));
      await page.getByRole('link', { name: 'Open Summarize text' }).waitFor();
      await fileInput.setInputFiles(join(EXAMPLES, 'research-agent.json'));
      await page.getByRole('link', { name: 'Open Research agent' }).click();
      await page.waitForURL(/#\/flows\/research-agent$/);

      const input = JSON.parse(await readFile(join(EXAMPLES, 'research-agent.input.json'), 'utf8')) as {
        question: string;
      };
      await page.getByRole('textbox', { name: 'Input question' }).fill(input.question);
      await page.getByRole('textbox', { name: 'Input apiBase' }).fill(base);
      // The recorded turns name the demo API at its default address: point them at this one.
      const fixtures = (await readFile(join(EXAMPLES, 'research-agent.fixtures.json'), 'utf8')).replaceAll(
        DEMO_DEFAULT_BASE,
        base,
      );
      await page.getByLabel('Fixtures file', { exact: true }).setInputFiles({
        name: 'research-agent.fixtures.json',
        mimeType: 'application/json',
        buffer: Buffer.from(fixtures),
      });
      await page.getByRole('button', { name: 'Run flow' }).click();
      await expect
        .poll(() => page.getByTestId('run-status').getAttribute('data-status'), { timeout: 30_000 })
        .toBe('completed');
      const runs = await api<{ id: string; status: string }[]>('runs.list', { flowId: 'research-agent' });
      expect(runs.map((run) => run.status)).toEqual(['completed']);
      researchRunId = runs[0]!.id;

      // The editor's run list links to every run of the flow on the runs screen.
      await page.getByRole('link', { name: 'All runs of research-agent' }).click();
      await page.waitForURL(/#\/runs\?flow=research-agent$/);
      await listed(page);
      expect(await runLinks(page).count()).toBe(1);
    });
  });

  it('finds the run on the runs screen by a word of its output and opens it', async () => {
    expect(researchRunId, 'needs the run of the first step').not.toBe('');
    await guarded('search', async (page) => {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Runs' }).click();
      await page.waitForURL((url) => url.hash === '#/runs');
      await listed(page);
      // The runs people started; with child runs, also the summarize-text run its flow tool started.
      await expect.poll(() => runLinks(page).count()).toBe(1);
      const children = page.getByRole('checkbox', { name: 'Include child runs' });
      await children.check();
      await page.waitForURL((url) => url.hash === '#/runs?children=1');
      await expect.poll(() => runLinks(page).count()).toBe(2);
      expect(
        await runsTable(page)
          .getByRole('link', { name: /^Open run / })
          .allTextContents(),
      ).toEqual(expect.arrayContaining([expect.stringContaining('summarize-text')]));
      await children.uncheck();
      await page.waitForURL((url) => url.hash === '#/runs');

      // "grew" is in the agent's answer only: not in its input, not in the child run's text.
      const search = page.getByRole('searchbox', { name: 'Search runs' });
      await search.fill('grew');
      await search.press('Enter');
      await page.waitForURL((url) => url.hash === '#/runs?q=grew');
      await listed(page);
      await expect.poll(() => runLinks(page).count()).toBe(1);
      const link = runLinks(page).first();
      expect(await link.getAttribute('aria-label')).toBe(`Open run ${researchRunId} (completed)`);
      expect(await link.textContent()).toContain('research-agent');
      await link.click();
      await page.waitForURL((url) => url.hash === `#/runs/${encodeURIComponent(researchRunId)}`);
      await page.getByTestId('node-research').waitFor();
      await expect.poll(() => nodeStatus(page, 'answer')).toBe('completed');
    });
  });

  it('scrubs back to when the second tool call was asked for and not yet answered', async () => {
    expect(researchRunId, 'needs the run opened by the previous step').not.toBe('');
    await guarded('scrub', async (page) => {
      // Turn 1 asked for fetch_page (tool#1.0); turn 2 for percent_change (tool#2.0) and summarize.
      events = await storedEvents(editor!.app.api, researchRunId);
      requested = events.findIndex((event) => event.type === 'step.started' && event.stepId === 'research/tool#2.0');
      expect(requested, JSON.stringify(events.map((event) => [event.type, event.stepId]))).toBeGreaterThan(0);
      const answeredAt = events.findIndex(
        (event) => event.type === 'step.completed' && event.stepId === 'research/tool#2.0',
      );
      expect(answeredAt).toBeGreaterThan(requested);

      // The agent step selected, so the inspector shows its conversation.
      await page.getByTestId('node-research').click();
      await slider(page).fill(String(requested));

      // The canvas: the agent is still working, the answer step has not started.
      await expect.poll(() => nodeStatus(page, 'research')).toBe('running');
      expect(await nodeStatus(page, 'answer')).not.toMatch(/running|completed/);
      // The timeline: turn 2 done, its first call running, turn 3 not begun.
      await expect.poll(() => bar(page, 'research/tool#2.0').getAttribute('data-status')).toBe('running');
      expect(await bar(page, 'research/llm#2').getAttribute('data-status')).toBe('completed');
      const turn3 = bar(page, 'research/llm#3');
      if ((await turn3.count()) > 0) expect(await turn3.getAttribute('data-status')).toBe('pending');
      // The transcript: both calls asked for, no result for percent_change, no final answer.
      await expect.poll(() => conversation(page).textContent()).toContain('percent_change');
      transcriptThen = (await conversation(page).textContent()) ?? '';
      expect(transcriptThen).toContain('summarize');
      expect(transcriptThen).not.toContain('35.7');

      // The address follows the scrubber and the selection (a permalink of this moment).
      const at = events[requested]!.seq;
      await page.waitForURL((url) => url.hash.includes(`at=${at}`) && url.hash.includes('step=research'));
      permalink = page.url();
    });
  });

  it('plays the run from there to its end', async () => {
    expect(requested, 'needs the scrubbed moment of the previous step').toBeGreaterThan(0);
    await guarded('play', async (page) => {
      await page.getByRole('button', { name: 'Play', exact: true }).click();
      await expect.poll(() => nodeStatus(page, 'answer'), { timeout: 30_000 }).toBe('completed');
      await expect.poll(() => conversation(page).textContent()).toContain('35.7');
      // Played to the end, the button offers Play again.
      await page.getByRole('button', { name: 'Play', exact: true }).waitFor({ timeout: 30_000 });
      expect(await slider(page).inputValue()).toBe(String(events.length - 1));
    });
  });

  it('opens the permalink in a new page on the same moment', async () => {
    expect(permalink, 'needs the permalink of the scrub step').not.toBe('');
    const page = await editor!.context.newPage();
    try {
      await guarded(
        'permalink',
        async () => {
          await page.goto(permalink);
          await expect.poll(() => slider(page).inputValue()).toBe(String(requested));
          await expect.poll(() => nodeStatus(page, 'research')).toBe('running');
          expect(await bar(page, 'research/tool#2.0').getAttribute('data-status')).toBe('running');
          await expect.poll(() => conversation(page).textContent()).toBe(transcriptThen);
          await page.screenshot({ path: join(DOCS, 'run-view.png') });
        },
        page,
      );
    } finally {
      await page.close();
    }
  });

  it('follows a failed spawn into its child run and back by the breadcrumbs', async () => {
    await guarded('spawn', async (page) => {
      await api('flows.create', { doc: CHILD }, 'POST');
      await api('flows.create', { doc: PARENT }, 'POST');
      const { runId: parentId } = await api<{ runId: string }>(
        'runs.start',
        { flowId: PARENT.id, input: { sku: 'B-42' } },
        'POST',
      );
      const parentState = async () =>
        (
          await api<{ state: { status: string; steps: Record<string, { childRunId: string | null }> } }>('runs.get', {
            runId: parentId,
          })
        ).state;
      await expect.poll(async () => (await parentState()).status, { timeout: 20_000 }).toBe('failed');
      const childId = (await parentState()).steps.reserve?.childRunId;
      expect(childId).toBeTruthy();

      // Found on the runs screen with the flow and status filters.
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Runs' }).click();
      await listed(page);
      await page.getByRole('combobox', { name: 'Flow', exact: true }).selectOption(PARENT.id);
      await page.getByRole('checkbox', { name: 'failed' }).check();
      await page.waitForURL((url) => url.hash === `#/runs?flow=${PARENT.id}&status=failed`);
      await listed(page);
      await expect.poll(() => runLinks(page).count()).toBe(1);
      await runLinks(page).first().click();
      await page.waitForURL((url) => url.hash.startsWith(`#/runs/${encodeURIComponent(parentId)}`));
      await expect.poll(() => nodeStatus(page, 'reserve')).toBe('failed');

      // Into the child: the spawn step's bar, then its link to the child run.
      await bar(page, 'reserve').click();
      await page
        .locator(`a[href="#/runs/${encodeURIComponent(childId!)}"]`)
        .first()
        .click();
      await page.waitForURL((url) => url.hash === `#/runs/${encodeURIComponent(childId!)}`);
      await expect.poll(() => nodeStatus(page, 'refuse')).toBe('failed');
      const crumbs = page.getByRole('navigation', { name: 'Run breadcrumbs' });
      // …and back to the parent, on the step that started the child.
      await crumbs.locator(`a[href="#/runs/${encodeURIComponent(parentId)}?step=reserve"]`).click();
      await page.waitForURL((url) => url.hash.startsWith(`#/runs/${encodeURIComponent(parentId)}`));
      await expect.poll(() => nodeStatus(page, 'reserve')).toBe('failed');
      await expect.poll(() => nodeStatus(page, 'confirm')).not.toBe('completed');
    });
  });

  it('lists every run, newest first, live as runs start and end', async () => {
    await guarded('runs-screen', async (page) => {
      await page.goto(`${editor!.app.url}#/runs`);
      await listed(page);
      const before = await runLinks(page).count();
      // Started while the screen is open: they appear on top, and end, without a reload.
      const started: string[] = [];
      for (const text of ['Weft 0.1 ships with SQLite.', 'Durable agents checkpoint every turn.', 'Offline tests.'])
        started.push(
          (await api<{ runId: string }>('runs.start', { flowId: 'summarize-text', input: { text } }, 'POST')).runId,
        );
      const rows = runsTable(page).locator('tbody tr[data-status]');
      const shown = () =>
        rows.evaluateAll((list) =>
          list.map((row) => [row.getAttribute('data-run-id'), row.getAttribute('data-status')]),
        );
      await expect.poll(async () => (await shown()).length, { timeout: 20_000 }).toBe(before + 3);
      await expect
        .poll(async () => (await shown()).every(([, status]) => status === 'completed' || status === 'failed'))
        .toBe(true);
      // On top (their order among themselves is the unit tests' business: they may share a millisecond).
      expect(
        (await shown())
          .slice(0, 3)
          .map(([id]) => id)
          .sort(),
      ).toEqual(started.sort());
      await page.screenshot({ path: join(DOCS, 'runs-screen.png') });
    });
  });
});
